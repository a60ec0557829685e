"""The game: rounds, the chip deck, bids, the timer, the demonstration queue, scores, solo play.

Pure: no I/O, no threads, no clock of its own. Every command carries its time ``at`` (monotonic
seconds, chosen by the caller), and :meth:`Game.advance` turns the passing of time into events
(the soft no-bid timeout, the timer running out). The random source is seeded by ``setup``.
The same commands at the same times always give the same game, which is what lets
:mod:`companion.store` rebuild a table from its journal.

Vocabulary
==========

A **seat** is an ``int`` from 0, clockwise round the table. A **chip** is named like the target
it shows: ``"red circle"`` … ``"yellow hexagon"`` and ``"vortex"`` (17 in all). Cells are names
like ``"c2"``. Robots are ``red green blue yellow`` plus the edition's 5th robot (``black`` or
``silver``) and the ``transparent`` variant robot.

Commands (JSON-able dicts; every one has ``"type"`` and ``"at"``)
-----------------------------------------------------------------
``setup``        ``players`` [names, or {"name"}] in seat order; ``rules`` (a preset name or an
                 object of options, see :class:`companion.rules.Rules`); ``board`` (``{"tiles":
                 [...]}`` or an explicit board, optional); ``robots`` {name: cell} (optional);
                 ``seed`` (int: shuffles the deck; the journal must record it); ``deck`` (optional
                 explicit chip order, top first); ``solo_runs`` 1 or 2 (solo easy mode: the timer
                 runs twice per round).
``reveal``       the next chip from the deck, or ``chip`` the players picked. Snapshots the robots.
                 Solo: the timer starts with the chip.
``bid``          ``seat``, ``value``: one standing bid per player, lower only. The first bid starts
                 the timer. Solo: the player has a solution: the timer pauses, she demonstrates.
``start_timer``  start the timer by hand before anyone bids (the hourglass button).
``move``         ``move`` ("blue up"): one move of the demonstration (optional ``seat``).
``done``         ``seat``: the demonstrator says her route is finished; it is judged now.
``give_up``      ``seat``: the demonstrator fails; a bidder still waiting withdraws.
``verdict``      ``success`` (bool), ``by`` (who said it: a name, ``"buttons"``, a seat): the
                 table's own word on the demonstration, where no camera judges the route;
                 optional ``reason`` (why it failed: an illegal move the camera saw).
``robots``       ``robots`` {name: cell}: where the robots stand (observed or placed by hand).
``optimum``      ``optimum`` (int), optional ``round``: the solver's optimal length for a round,
                 kept for statistics (it changes nothing in play).
``hint``         ``level`` 1–4: solo, the player asked for a hint (length, robots, first move,
                 route) in this round; the round keeps the highest level, for statistics.
``undo``         undo the last player command (not ``robots``/``optimum``/``hint``/``tick``,
                 which stay).
``correct``      a referee's override: ``by`` (who), optional ``reason``, and exactly one of
                 ``award`` {"seat", optional "chip"} (give the chip in play, or a chip from the
                 deck, to a seat), ``revoke`` {"seat", "chip"} (a won chip goes back into the deck),
                 ``bid`` {"seat", "value": int | null} (set or remove a bid, ignoring lower-only),
                 ``timer`` (seconds left on the running or paused timer), ``robots`` {name: cell}
                 (where the robots stand, and the round's snapshot while no one demonstrates),
                 ``snapshot`` {name: cell}, ``name`` {"seat", "name"}, ``board`` (a board).
``tick``         nothing but the time: the journaled form of :meth:`Game.advance`.
``resume``       the companion starts again after being off: ``at`` is the new clock's time.
                 Every stored time shifts so that the time spent off does not count: the
                 timer resumes with the seconds it had left (as a sand timer laid flat would).
``new_game``     ends this game; with setup's fields it sets the next one up at once.

A rejected command raises :class:`GameError`, whose message a player understands
("Anna's bid of 9 is higher than her bid of 7", "the timer has run out"). Nothing changes.

Events (JSON-able dicts; every one has ``"type"`` and ``"at"``)
---------------------------------------------------------------
``game_set_up``              players, rules, seed, deck_size, solo, solo_runs, robots
``chip_revealed``            round, chip, target {chip, color, shape, cell, robot}, snapshot
``bid``                      seat, name, value, previous
``timer_started``            reason (first_bid | no_bid | by_hand | solo | second_run),
                             duration, ends_at, run
``timer_paused``             remaining (solo: a solution is being shown)
``timer_resumed``            remaining, ends_at (solo: it failed; she may look on)
``timer_ended``              run
``demonstration_started``    seat, name, bid
``moved``                    seat, move, moves_made, cost, robots, reached
``demonstration_succeeded``  seat, name, bid, moves, route, by
``demonstration_failed``     seat, name, bid, reason, by, route
``bid_withdrawn``            seat, name
``robots_reset``             robots (back to the snapshot)
``chip_won``                 seat, name, chip, face (up | down: solo)
``chip_returned``            chip, reason
``round_over``               round, chip, winner, winner_name, bids, optimum, route (solo:
                             face, hint: the highest hint level taken, 0 for none)
``game_over``                winners, names, scores
``robots_placed``            robots
``optimum``                  round, optimum
``hinted``                   round, level
``undone``                   command
``resumed``                  shift
``corrected``                what, by, reason, and what changed
``new_game``                 (nothing more)

Phases (``view()["phase"]``)
----------------------------
``setup`` (no game yet) → ``idle`` (set up, no chip revealed) → ``bidding`` (a chip is
revealed, the timer is not running) → ``timer`` → ``demonstrating`` → ``round_over`` → (reveal)
``bidding`` … → ``game_over``.
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
from .engine import CommandEngine
from .errors import CompanionError
from .i18n import Message
from .rules import (
    FIFTH_ROBOTS,
    ROBOTS,
    TRANSPARENT,
    Goal,
    InvalidMoveError,
    Move,
    Position,
    PositionError,
    Rules,
    validate_route,
)

Event = dict[str, Any]
Command = dict[str, Any]

CHIPS: tuple[str, ...] = tuple(f"{c} {s}" for c in COLORS for s in SHAPES) + (VORTEX,)
PHASES = ("setup", "idle", "bidding", "timer", "demonstrating", "round_over", "game_over")
COMMANDS = (
    "setup", "reveal", "bid", "start_timer", "move", "done", "give_up", "verdict", "robots",
    "optimum", "undo", "correct", "tick", "resume", "new_game", "hint",
)
# Commands that record what the table sees or knows rather than what a player did: ``undo``
# passes over them and keeps them.
OBSERVATIONS = frozenset({"robots", "optimum", "tick", "hint"})
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


def _detail(reason: Any) -> Any:
    """What is wrong with a route's failing move, without its ``move N (…)`` label."""
    if isinstance(reason, Message) and reason.key == "route.move":
        return reason.args["why"]
    return str(reason).split("): ", 1)[-1]


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


# ---------------------------------------------------------------- the game


class Game(CommandEngine[State]):
    """A whole game of Ricochet Robots as the table plays it.

    >>> g = Game()
    >>> _ = g.apply({"type": "setup", "at": 0, "players": ["Anna", "Ben"], "seed": 1})
    >>> _ = g.apply({"type": "reveal", "at": 1})
    >>> [e["type"] for e in g.apply({"type": "bid", "at": 5, "seat": 0, "value": 7})]
    ['bid', 'timer_started']
    >>> g.view()["timer"]["remaining"]
    60.0

    ``rng`` draws a seed for a ``setup`` that brings none (a journal must then record the seed
    from the ``game_set_up`` event; :mod:`companion.store` fills it in before applying).
    """

    COMMANDS = COMMANDS
    OBSERVATIONS = OBSERVATIONS
    REFUSALS = (GameError, PositionError, BoardError, InvalidMoveError)
    Error = GameError

    def __init__(self, rng: random.Random | None = None) -> None:
        self._rng = rng or random.Random()
        super().__init__(State())

    # -- public API
    def advance(self, now: float) -> list[Event]:
        """Let time pass to ``now``: the soft no-bid timeout and the timer's end happen here."""
        if self.s.phase == "setup":
            self.s.now = max(self.s.now, now)
            return []
        return self._advance(float(now))

    def _pass_time(self, at: float) -> list[Event]:
        return self._advance(at) if self.s.phase != "setup" else []

    def _shift(self, state: State, delta: float) -> None:
        _shift(state, delta)

    def next_deadline(self) -> float | None:
        """When :meth:`advance` will next have something to do (for the table loop's sleep)."""
        r = self.s.round
        if r is None:
            return None
        if self.s.phase == "bidding" and not self.s.solo:
            return r.revealed_at + self.s.rules.no_bid_seconds
        if self.s.phase == "timer":
            return r.timer.ends_at()
        return None

    def view(self, now: float | None = None) -> dict[str, Any]:
        """Everything the page and the LEDs show, JSON-able. ``now`` only sets the timer's
        ``remaining``; it does not advance the game."""
        s = self.s
        t = s.now if now is None else max(now, s.now)
        r = s.round
        timer: dict[str, Any] = {"running": False, "started_at": None,
                                 "duration": float(s.rules.timer_seconds), "remaining": None,
                                 "ends_at": None, "run": 0, "runs": s.solo_runs}
        if r is not None and s.phase in ("bidding", "timer", "demonstrating"):
            timer.update(running=r.timer.running, started_at=r.timer.started_at,
                         duration=float(r.timer.duration), ends_at=r.timer.ends_at(),
                         run=r.timer.run,
                         remaining=round(r.timer.remaining(t), 3) if r.timer.run else None)
        order = self._ordered_bids()
        bid_to_meet = None
        demonstrating = r.demonstrator if r is not None and s.phase == "demonstrating" else None
        if r is not None and demonstrating is not None and demonstrating in r.bids:
            bid_to_meet = r.bids[demonstrating].value
        elif s.phase in ("bidding", "timer") and order:
            bid_to_meet = order[0].value
        leader = next((b.seat for b in order if b.status in ("waiting", "demonstrating")), None)
        cost = 0
        if r is not None and r.moves:
            cost = sum(Move.parse(m).cost for m in r.moves)
        return {
            "phase": s.phase,
            "at": s.now if math.isfinite(s.now) else None,
            "players": [self._player_view(i) for i in range(len(s.players))],
            "solo": s.solo,
            "rules": s.rules.to_spec(),
            "board": s.board.to_dict() if s.board is not None else None,
            "round": r.number if r is not None else len(s.rounds),
            "chip": r.chip if r is not None and self._in_play() else None,
            "target": self._target_view(r.chip) if r is not None else None,
            "timer": timer,
            "bids": [self._bid_view(b) for b in order],
            "leader": leader,
            "demonstrating": demonstrating,
            "moves": list(r.moves) if r is not None and demonstrating is not None else [],
            "moves_made": len(r.moves) if r is not None and demonstrating is not None else 0,
            "cost": cost if demonstrating is not None else 0,
            "bid_to_meet": bid_to_meet,
            "robots": self._cells(s.robots),
            "snapshot": self._cells(r.snapshot) if r is not None else None,
            "deck": sorted(s.deck, key=CHIPS.index),
            "deck_size": len(s.deck),
            "chips_needed": s.rules.chips_needed(len(s.players)) if s.players else None,
            "rounds": copy.deepcopy(s.rounds),
            "winners": list(s.winners),
            "can_undo": bool(self._undo),
            "verdict": dict(s.verdict) if s.verdict is not None else None,
        }

    def summary(self) -> dict[str, Any]:
        """What history keeps of this game: players, chips, winners, every finished round."""
        return {
            "players": [p.name for p in self.s.players],
            "chips": [p.chips for p in self.s.players],
            "face_up": [len(p.won) for p in self.s.players],
            "phase": self.s.phase,
            "winners": list(self.s.winners),
            "rules": self.s.rules.to_spec(),
            "rounds": copy.deepcopy(self.s.rounds),
        }

    # -- helpers for views and messages
    def _name(self, seat: int) -> str:
        return self.s.players[seat].name

    def _cells(self, robots: Mapping[str, Cell]) -> dict[str, str]:
        w = self.s.board.width if self.s.board is not None else 16
        return {r: cell_name(c, w) for r, c in sorted(robots.items(),
                                                       key=lambda kv: ROBOTS.index(kv[0]))}

    def _player_view(self, seat: int) -> dict[str, Any]:
        p = self.s.players[seat]
        r = self.s.round
        bid = r.bids.get(seat) if r is not None and self._in_play() else None
        out = {"seat": seat, "name": p.name, "chips": p.chips, "won": list(p.won),
               "bid": bid.value if bid is not None else None,
               "out": bid is not None and bid.status in ("failed", "withdrawn")}
        if self.s.solo:
            out.update(face_up=len(p.won), face_down=len(p.face_down),
                       face_down_chips=list(p.face_down))
        return out

    def _bid_view(self, b: Bid) -> dict[str, Any]:
        return {"seat": b.seat, "name": self._name(b.seat), "value": b.value, "at": b.at,
                "status": b.status}

    def _target_view(self, chip: str) -> dict[str, Any]:
        color, shape = _chip_parts(chip)
        out: dict[str, Any] = {"chip": chip, "color": color, "shape": shape, "cell": None,
                               "robot": "any" if shape == VORTEX else color}
        if self.s.board is not None:
            try:
                t = self.s.board.target_by(color, shape)
                out["cell"] = self.s.board.name(t.cell)
            except BoardError:
                pass
        return out

    def _goal(self, chip: str) -> Goal | None:
        if self.s.board is None:
            return None
        color, shape = _chip_parts(chip)
        try:
            t = self.s.board.target_by(color, shape)
        except BoardError:
            return None
        return Goal(t.cell, "any" if shape == VORTEX else color, color, shape)

    def _ordered_bids(self) -> list[Bid]:
        r = self.s.round
        if r is None or not self._in_play():
            return []
        return sorted(r.bids.values(), key=self._bid_key)

    def _in_play(self) -> bool:
        """Is a chip out on the board right now (revealed, not yet won or returned)?"""
        return self.s.phase in ("bidding", "timer", "demonstrating")

    def _bid_key(self, b: Bid) -> tuple:
        if self.s.rules.tie == "fewer_chips_then_bid_order":
            return (b.value, self.s.players[b.seat].chips, b.at, b.seq)
        return (b.value, b.at, b.seq)

    def _snapshot(self) -> State:
        memo: dict[int, Any] = {}
        if self.s.board is not None:
            memo[id(self.s.board)] = self.s.board
        return copy.deepcopy(self.s, memo)

    def _seat(self, cmd: Mapping[str, Any], key: str = "seat") -> int:
        seat = cmd.get(key)
        n = len(self.s.players)
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise GameError(f"say which player: '{key}' is a seat number from 0 to {n - 1}")
        if not 0 <= seat < n:
            who = ", ".join(f"{i} {p.name}" for i, p in enumerate(self.s.players))
            raise GameError(Message("refuse.no_seat", seat=seat, seats=who))
        return seat

    def _need_phase(self, kind: str, *phases: str) -> None:
        if self.s.phase in phases:
            return
        p = self.s.phase
        if p == "setup":
            raise GameError(Message("refuse.not_set_up"))
        if p == "game_over":
            raise GameError(Message("refuse.game_over"))
        if p == "idle":
            raise GameError(Message("refuse.no_chip"))
        if kind == "bid" and p == "demonstrating" and self.s.solo:
            raise GameError(Message("refuse.demonstrating"))
        if kind == "bid" and p in ("demonstrating", "round_over"):
            raise GameError(Message("refuse.time_up"))
        if p == "round_over":
            raise GameError(Message("refuse.round_over"))
        if p == "demonstrating":
            raise GameError(Message("refuse.demonstrating"))
        if p == "bidding":
            raise GameError(Message("refuse.timer_not_started"))
        raise GameError(Message("refuse.timer_running"))

    def _parse_robots(self, raw: Any, field_name: str = "robots") -> dict[str, Cell]:
        if not isinstance(raw, Mapping) or not raw:
            raise GameError(f"{field_name}: an object like {{\"red\": \"c2\", ...}}")
        rules, board = self.s.rules, self.s.board
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

    # -- time
    def _advance(self, now: float) -> list[Event]:
        s = self.s
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
                events += self._start_timer(due, "no_bid")
                continue
            if s.phase == "timer":
                end = r.timer.ends_at()
                if end is None or end > now:
                    break
                events += self._timer_end(end)
                continue
            break
        s.now = now
        return events

    def _start_timer(self, at: float, reason: str) -> list[Event]:
        r = self.s.round
        assert r is not None
        r.timer = Timer(float(self.s.rules.timer_seconds), at, 0.0, True, r.timer.run + 1)
        self.s.phase = "timer"
        self.s.now = max(self.s.now, at)
        return [{"type": "timer_started", "at": at, "reason": reason,
                 "duration": r.timer.duration, "ends_at": r.timer.ends_at(), "run": r.timer.run}]

    def _timer_end(self, at: float) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        r.timer.used = r.timer.duration
        r.timer.running = False
        s.now = max(s.now, at)
        events: list[Event] = [{"type": "timer_ended", "at": at, "run": r.timer.run}]
        if s.solo:
            if r.timer.run < s.solo_runs:
                return events + self._start_timer(at, "second_run")
            s.players[0].face_down.append(r.chip)
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self._name(0),
                           "chip": r.chip, "face": "down"})
            return events + self._end_round(at, None)
        if not r.bids:
            return events + self._return_chip(at, "nobody bid")
        r.queue = [b.seat for b in sorted(r.bids.values(), key=self._bid_key)]
        s.phase = "demonstrating"
        return events + self._next_demonstrator(at)

    # -- the round
    def _next_demonstrator(self, at: float) -> list[Event]:
        r = self.s.round
        assert r is not None
        for seat in r.queue:
            b = r.bids[seat]
            if b.status == "waiting":
                b.status = "demonstrating"
                r.demonstrator = seat
                r.moves = []
                return [{"type": "demonstration_started", "at": at, "seat": seat,
                         "name": self._name(seat), "bid": b.value}]
        r.demonstrator = None
        return self._return_chip(at, "no demonstration succeeded")

    def _return_chip(self, at: float, reason: str) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        s.deck.insert(s.rng.randrange(len(s.deck) + 1), r.chip)
        events: list[Event] = [{"type": "chip_returned", "at": at, "chip": r.chip,
                                "reason": reason}]
        return events + self._end_round(at, None)

    def _end_round(self, at: float, winner: int | None,
                   route: list[str] | None = None) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        record = {
            "round": r.number, "chip": r.chip, "winner": winner,
            "winner_name": self._name(winner) if winner is not None else None,
            "bids": [{"seat": b.seat, "name": self._name(b.seat), "value": b.value,
                      "status": b.status} for b in sorted(r.bids.values(), key=self._bid_key)],
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
        return events + self._check_game_over(at)

    def _check_game_over(self, at: float) -> list[Event]:
        s = self.s
        needed = s.rules.chips_needed(len(s.players))
        top = max(p.chips for p in s.players)
        chip_in_play = s.round is not None and self._in_play()
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
                 "names": [self._name(i) for i in s.winners],
                 "scores": [p.chips for p in s.players]}]

    def _succeed(self, at: float, by: Any, route: list[str]) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        if bid is not None:
            bid.status = "succeeded"
        events: list[Event] = [{"type": "demonstration_succeeded", "at": at, "seat": seat,
                                "name": self._name(seat),
                                "bid": bid.value if bid is not None else None,
                                "moves": len(route), "route": list(route), "by": by}]
        s.verdict = {"success": True, "seat": seat, "name": self._name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(route),
                     "reason": None, "by": by}
        s.players[seat].won.append(r.chip)
        events.append({"type": "chip_won", "at": at, "seat": seat, "name": self._name(seat),
                       "chip": r.chip, "face": "up"})
        return events + self._end_round(at, seat, route)

    def _fail(self, at: float, reason: str, by: Any, result: Failure) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        s.verdict = {"success": False, "seat": seat, "name": self._name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(r.moves),
                     "reason": reason, "by": by, "result": result.value}
        events: list[Event] = [{"type": "demonstration_failed", "at": at, "seat": seat,
                                "name": self._name(seat),
                                "bid": bid.value if bid is not None else None,
                                "reason": reason, "by": by, "route": list(r.moves)}]
        if s.robots != r.snapshot:
            s.robots = dict(r.snapshot)
            events.append({"type": "robots_reset", "at": at, "robots": self._cells(s.robots)})
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
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self._name(0),
                           "chip": r.chip, "face": "down"})
            return events + self._end_round(at, None)
        if bid is not None:
            bid.status = "failed"
        return events + self._next_demonstrator(at)

    def _judge(self, moves: list[str]):
        s, r = self.s, self.s.round
        assert r is not None
        goal = self._goal(r.chip)
        if s.board is None or goal is None:
            raise GameError("the companion does not know the board, so it cannot follow the "
                            "moves; judge the demonstration with a verdict")
        pos = Position(s.board, {k: r.snapshot[k] for k in sorted(r.snapshot, key=ROBOTS.index)},
                       goal, s.rules)
        bid = r.bids[r.demonstrator].value if r.demonstrator in r.bids else None
        return validate_route(pos, [Move.parse(m) for m in moves], bid)

    # -- commands
    def _do_tick(self, cmd: Command, at: float) -> list[Event]:
        return []

    def _do_setup(self, cmd: Command, at: float) -> list[Event]:
        if self.s.phase != "setup":
            raise GameError("a game is already set up; start a new game first")
        return self._setup(cmd, at)

    def _do_new_game(self, cmd: Command, at: float) -> list[Event]:
        self.s = State(now=at)
        self._undo.clear()
        events: list[Event] = [{"type": "new_game", "at": at}]
        if "players" in cmd:
            events += self._setup(cmd, at)
        return events

    def _setup(self, cmd: Command, at: float) -> list[Event]:
        known = {"type", "at", "players", "rules", "board", "robots", "seed", "deck", "solo_runs"}
        extra = sorted(set(cmd) - known)
        if extra:
            raise GameError(f"setup: unknown field {extra[0]!r}")
        s = self.s
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
            seed = self._rng.getrandbits(32)
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
            parsed = [_parse_chip(c) for c in order]
            if sorted(parsed) != sorted(CHIPS):
                raise GameError("setup: the deck must hold each of the 17 chips exactly once")
            deck = parsed
        s.deck = deck
        s.robots = self._parse_robots(cmd["robots"]) if cmd.get("robots") else {}
        s.phase = "idle"
        s.now = max(s.now, at)
        return [{"type": "game_set_up", "at": at, "players": names, "rules": rules.to_spec(),
                 "seed": seed, "deck_size": len(deck), "solo": s.solo, "solo_runs": solo_runs,
                 "robots": self._cells(s.robots)}]

    def _do_reveal(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        self._need_phase("reveal", "idle", "round_over")
        if not s.deck:
            raise GameError(Message("refuse.deck_empty"))
        if cmd.get("chip") is not None:
            chip = _parse_chip(cmd["chip"])
            if chip not in s.deck:
                holder = next((p.name for p in s.players if chip in p.won + p.face_down), None)
                if holder:
                    raise GameError(Message("refuse.chip_held", chip=i18n.chip(chip),
                                            name=holder))
                raise GameError(Message("refuse.chip_gone", chip=i18n.chip(chip)))
            s.deck.remove(chip)
        else:
            chip = s.deck.pop(0)
        number = len(s.rounds) + 1
        s.round = Round(number, chip, at, dict(s.robots), Timer(float(s.rules.timer_seconds)))
        s.phase = "bidding"
        s.verdict = None
        events: list[Event] = [{"type": "chip_revealed", "at": at, "round": number, "chip": chip,
                                "target": self._target_view(chip),
                                "snapshot": self._cells(s.robots)}]
        if s.solo:
            events += self._start_timer(at, "solo")
        return events

    def _do_start_timer(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("start_timer", "bidding")
        return self._start_timer(at, "by_hand")

    def _do_bid(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        seat = self._seat(cmd)
        self._need_phase("bid", "bidding", "timer")
        r = s.round
        assert r is not None
        value = cmd.get("value")
        name = self._name(seat)
        if isinstance(value, bool) or not isinstance(value, int):
            raise GameError(Message("refuse.bid_not_number", name=name, bid=repr(value)))
        if value < 1:
            raise GameError(Message("refuse.bid_low", name=name, bid=value))
        if value > MAX_BID:
            raise GameError(Message("refuse.bid_high", name=name, bid=value, most=MAX_BID))
        old = r.bids.get(seat)
        if old is not None and value > old.value:
            raise GameError(Message("refuse.bid_higher", name=name, bid=value,
                                    previous=old.value))
        if old is not None and value == old.value:
            raise GameError(Message("refuse.bid_same", name=name, bid=value))
        s.seq += 1
        r.bids[seat] = Bid(seat, value, at, s.seq)
        events: list[Event] = [{"type": "bid", "at": at, "seat": seat, "name": name,
                                "value": value, "previous": old.value if old else None}]
        if s.solo:
            left = r.timer.remaining(at)
            r.timer.used = r.timer.duration - left
            r.timer.running = False
            events.append({"type": "timer_paused", "at": at, "remaining": left})
            r.queue = [seat]
            s.phase = "demonstrating"
            return events + self._next_demonstrator(at)
        if s.phase == "bidding":
            events += self._start_timer(at, "first_bid")
        return events

    def _demonstrator(self, cmd: Command, kind: str) -> int:
        """The seat now demonstrating; a ``seat`` in the command must be hers."""
        s, r = self.s, self.s.round
        if s.solo and s.phase == "timer" and kind in ("move",):
            # A solo player may simply start moving: a demonstration without a number.
            assert r is not None
            left = r.timer.remaining(s.now)
            r.timer.used = r.timer.duration - left
            r.timer.running = False
            r.queue = [0]
            r.bids.pop(0, None)
            r.demonstrator = 0
            r.moves = []
            s.phase = "demonstrating"
        self._need_phase(kind, "demonstrating")
        assert r is not None and r.demonstrator is not None
        if cmd.get("seat") is not None:
            seat = self._seat(cmd)
            if seat != r.demonstrator:
                raise GameError(Message("refuse.not_your_demonstration",
                                        name=self._name(r.demonstrator),
                                        other=self._name(seat)))
        return r.demonstrator

    def _do_move(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        was_timer = s.phase == "timer"
        seat = self._demonstrator(cmd, "move")
        r = s.round
        assert r is not None
        text = cmd.get("move")
        move = Move.parse(text) if not isinstance(text, Mapping) else Move.parse(
            f"{text.get('robot')} {text.get('direction')}")
        moves = [*r.moves, move.text()]
        result = self._judge(moves)
        events: list[Event] = []
        if was_timer:
            events.append({"type": "timer_paused", "at": at,
                           "remaining": r.timer.remaining(at)})
            events.append({"type": "demonstration_started", "at": at, "seat": 0,
                           "name": self._name(0), "bid": None})
        name = self._name(seat)
        if not result.legal and result.rule == "no_move":
            # Nothing moved on the table, so nothing was demonstrated: refuse, do not fail.
            raise GameError(Message("refuse.no_move", move=i18n.move(move.robot,
                                    move.direction.word, " ".join(move.passes)),
                                    why=_detail(result.reason)))
        if not result.legal:
            r.moves = moves
            return events + self._fail(at, Message("fail.illegal", name=name,
                                                   why=result.reason), "rules", Failure.ILLEGAL)
        r.moves = moves
        s.robots = dict(result.robots)
        events.append({"type": "moved", "at": at, "seat": seat, "move": move.text(),
                       "moves_made": len(moves), "cost": result.cost,
                       "robots": self._cells(s.robots), "reached": result.reached})
        bid = r.bids[seat].value if seat in r.bids else None
        if bid is not None and result.cost > bid:
            return events + self._fail(
                at, Message("fail.over_bid", name=name, cost=result.cost, bid=bid), "rules",
                Failure.OVER_BID)
        if result.reached and (bid is None or result.meets_bid):
            return events + self._succeed(at, "rules", moves)
        return events

    def _do_done(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "done")
        r = self.s.round
        assert r is not None
        name = self._name(seat)
        if not r.moves:
            return self._fail(at, Message("fail.no_moves", name=name), "rules",
                              Failure.INCOMPLETE)
        result = self._judge(r.moves)
        if result.reached and result.meets_bid is not False:
            return self._succeed(at, "rules", list(r.moves))
        if result.reached:
            bid = r.bids[seat].value
            return self._fail(at, Message("fail.not_exact", name=name, cost=result.cost,
                                          bid=bid), "rules", Failure.OVER_BID)
        return self._fail(at, Message("fail.route", name=name, why=result.reason), "rules",
                          Failure.INCOMPLETE)

    def _do_give_up(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        seat = self._seat(cmd)
        r = s.round
        if s.phase == "demonstrating" and r is not None:
            if seat == r.demonstrator:
                return self._fail(at, Message("fail.gave_up", name=self._name(seat)), seat,
                                  Failure.GAVE_UP)
            b = r.bids.get(seat)
            if b is not None and b.status == "waiting":
                b.status = "withdrawn"
                return [{"type": "bid_withdrawn", "at": at, "seat": seat,
                         "name": self._name(seat)}]
            raise GameError(Message("refuse.no_waiting_bid", name=self._name(seat)))
        if s.phase == "timer" and s.solo:
            left = r.timer.remaining(at) if r is not None else 0
            assert r is not None
            r.timer.used, r.timer.running = r.timer.duration, False
            s.players[0].face_down.append(r.chip)
            return [{"type": "timer_ended", "at": at, "run": r.timer.run, "remaining": left},
                    {"type": "chip_won", "at": at, "seat": 0, "name": self._name(0),
                     "chip": r.chip, "face": "down"}] + self._end_round(at, None)
        if s.phase in ("bidding", "timer"):
            raise GameError(Message("refuse.bid_stands"))
        self._need_phase("give_up", "demonstrating")
        return []  # pragma: no cover

    def _do_verdict(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "verdict")
        success = cmd.get("success")
        if not isinstance(success, bool):
            raise GameError("a verdict says success: true or false")
        by = cmd.get("by")
        if by is None or by == "" or isinstance(by, bool) or not isinstance(by, str | int):
            raise GameError("a verdict says who gave it ('by')")
        r = self.s.round
        assert r is not None
        if success:
            return self._succeed(at, by, list(r.moves))
        # the camera (or the referee) may say why: kept with the verdict, it is an illegal
        # demonstration in those words
        why = cmd.get("reason")
        if isinstance(why, Mapping):  # a message the camera gave, as its key and values
            told = i18n.from_stored(dict(why))
            if told is not None:
                return self._fail(at, told, by, Failure.ILLEGAL)
        if isinstance(why, str) and why.strip():  # prose: a referee's words, an old journal
            return self._fail(at, " ".join(why.split())[:MAX_REASON], by, Failure.ILLEGAL)
        return self._fail(at, Message("fail.judged", name=self._name(seat)), by,
                          Failure.ILLEGAL)

    def _do_robots(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        if s.phase == "setup":
            raise GameError(Message("refuse.not_set_up"))
        robots = self._parse_robots(cmd.get("robots"))
        if s.phase == "demonstrating":
            if robots == s.robots:
                return []
            raise GameError(Message("refuse.robots_demonstrating"))
        s.robots = robots
        if s.phase in ("bidding", "timer") and s.round is not None:
            s.round.snapshot = dict(robots)
        return [{"type": "robots_placed", "at": at, "robots": self._cells(robots)}]

    def _do_optimum(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        value = cmd.get("optimum")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise GameError(f"optimum: a number of moves from 1, or null, not {value!r}")
        number = cmd.get("round")
        r = s.round
        if number is None:
            if r is None:
                raise GameError(Message("refuse.no_chip"))
            number = r.number
        if r is not None and number == r.number:
            r.optimum = value
        found = False
        for rec in s.rounds:
            if rec["round"] == number:
                rec["optimum"] = value
                found = True
        if not found and (r is None or number != r.number):
            raise GameError(f"there is no round {number}")
        return [{"type": "optimum", "at": at, "round": number, "optimum": value}]

    def _do_hint(self, cmd: Command, at: float) -> list[Event]:
        s, r = self.s, self.s.round
        level = cmd.get("level")
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 4:
            raise GameError(f"hint: a level from 1 to 4, not {level!r}")
        if not s.solo:
            raise GameError(Message("refuse.hint_solo"))
        if r is None or s.phase not in ("bidding", "timer", "demonstrating"):
            raise GameError(Message("refuse.hint_round"))
        r.hint = max(r.hint, level)
        return [{"type": "hinted", "at": at, "round": r.number, "level": level}]

    def _do_undo(self, cmd: Command, at: float) -> list[Event]:
        entry = self._pop_undo()
        self.s = entry.before
        for follower in entry.followers:
            try:
                self._advance(float(follower["at"]))
                getattr(self, f"_do_{follower['type']}")(dict(follower),
                                                          max(float(follower["at"]), self.s.now))
            except (GameError, ValueError):
                continue
        if self._undo:
            self._undo[-1].followers.extend(entry.followers)
        events: list[Event] = [{"type": "undone", "at": at, "command": entry.command}]
        return events + self._advance(at)

    def _do_correct(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        if s.phase == "setup":
            raise GameError(Message("refuse.not_set_up"))
        kinds = ("award", "revoke", "bid", "timer", "robots", "snapshot", "name", "board")
        given = [k for k in kinds if k in cmd]
        if len(given) != 1:
            raise GameError(f"a correction changes exactly one of: {', '.join(kinds)}")
        by = cmd.get("by")
        if by is None or by == "" or isinstance(by, bool) or not isinstance(by, str | int):
            raise GameError("a correction says who made it ('by')")
        what = given[0]
        value = cmd[what]
        base = {"type": "corrected", "at": at, "what": what, "by": by,
                "reason": cmd.get("reason")}
        return getattr(self, f"_correct_{what}")(value, at, base)

    def _correct_award(self, value: Any, at: float, base: Event) -> list[Event]:
        s, r = self.s, self.s.round
        if not isinstance(value, Mapping):
            raise GameError("award: {\"seat\": n} and optionally the \"chip\"")
        seat = self._seat(value)
        in_play = r is not None and s.phase in ("bidding", "timer", "demonstrating")
        chip = _parse_chip(value["chip"]) if value.get("chip") is not None else None
        if in_play and r is not None and (chip is None or chip == r.chip):
            if s.phase != "demonstrating":
                r.queue = [b.seat for b in sorted(r.bids.values(), key=self._bid_key)]
            r.demonstrator = seat
            if seat in r.bids:
                r.bids[seat].status = "demonstrating"
            s.phase = "demonstrating"
            return [{**base, "seat": seat, "chip": r.chip}] + self._succeed(
                at, base["by"], list(r.moves))
        if chip is None:
            if not s.rounds or s.rounds[-1]["chip"] not in s.deck:
                raise GameError("award: say which chip")
            chip = s.rounds[-1]["chip"]
        if chip not in s.deck:
            raise GameError(f"award: the {chip} chip is not in the deck")
        if s.solo:
            raise GameError("award: in solo play, revoke the face-down chip and award it "
                            "during its round")
        s.deck.remove(chip)
        s.players[seat].won.append(chip)
        events: list[Event] = [{**base, "seat": seat, "chip": chip},
                               {"type": "chip_won", "at": at, "seat": seat,
                                "name": self._name(seat), "chip": chip, "face": "up"}]
        for rec in reversed(s.rounds):
            if rec["chip"] == chip and rec["winner"] is None:
                rec["winner"], rec["winner_name"] = seat, self._name(seat)
                break
        return events + self._check_game_over(at)

    def _correct_revoke(self, value: Any, at: float, base: Event) -> list[Event]:
        s = self.s
        if not isinstance(value, Mapping) or value.get("chip") is None:
            raise GameError("revoke: {\"seat\": n, \"chip\": \"red circle\"}")
        seat = self._seat(value)
        chip = _parse_chip(value["chip"])
        p = s.players[seat]
        if chip in p.won:
            p.won.remove(chip)
        elif chip in p.face_down:
            p.face_down.remove(chip)
        else:
            raise GameError(f"revoke: {p.name} does not have the {chip} chip")
        s.deck.insert(s.rng.randrange(len(s.deck) + 1), chip)
        for rec in reversed(s.rounds):
            if rec["chip"] == chip and rec["winner"] == seat:
                rec["winner"], rec["winner_name"] = None, None
                break
        events: list[Event] = [{**base, "seat": seat, "chip": chip},
                               {"type": "chip_returned", "at": at, "chip": chip,
                                "reason": "revoked by the referee"}]
        return events + self._check_game_over(at)

    def _correct_bid(self, value: Any, at: float, base: Event) -> list[Event]:
        s, r = self.s, self.s.round
        if not isinstance(value, Mapping):
            raise GameError("bid: {\"seat\": n, \"value\": moves or null}")
        seat = self._seat(value)
        if r is None or s.phase not in ("bidding", "timer", "demonstrating"):
            raise GameError("bid: no round is being played")
        n = value.get("value")
        old = r.bids.get(seat)
        if s.phase == "demonstrating" and (seat == r.demonstrator
                                           or (old is not None and old.status != "waiting")):
            raise GameError(f"bid: {self._name(seat)}'s bid has been demonstrated already")
        if n is None:
            if old is None:
                raise GameError(f"bid: {self._name(seat)} has no bid")
            del r.bids[seat]
            if seat in r.queue:
                r.queue.remove(seat)
        else:
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_BID:
                raise GameError(f"bid: a number of moves from 1 to {MAX_BID}, not {n!r}")
            s.seq += 1
            r.bids[seat] = Bid(seat, n, old.at if old and old.value == n else at, s.seq)
            if s.phase == "demonstrating":
                done = [q for q in r.queue if r.bids.get(q) and r.bids[q].status != "waiting"]
                waiting = sorted((b for b in r.bids.values() if b.status == "waiting"),
                                 key=self._bid_key)
                r.queue = done + [b.seat for b in waiting]
        events: list[Event] = [{**base, "seat": seat, "value": n,
                                "previous": old.value if old else None}]
        if s.phase == "bidding" and r.bids and not s.solo:
            events += self._start_timer(at, "first_bid")
        return events

    def _correct_timer(self, value: Any, at: float, base: Event) -> list[Event]:
        s, r = self.s, self.s.round
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise GameError("timer: the seconds left, a number from 0")
        if r is None or s.phase not in ("timer", "demonstrating") or not r.timer.run:
            raise GameError("timer: the timer is not running")
        if value > r.timer.duration:
            raise GameError(f"timer: at most {r.timer.duration:g} seconds")
        r.timer.used = r.timer.duration - float(value)
        if r.timer.running:
            r.timer.started_at = at
        return [{**base, "remaining": float(value)}] + self._advance(at)

    def _correct_robots(self, value: Any, at: float, base: Event) -> list[Event]:
        s = self.s
        robots = self._parse_robots(value)
        s.robots = robots
        r = s.round
        if r is not None and s.phase in ("bidding", "timer"):
            r.snapshot = dict(robots)
        return [{**base, "robots": self._cells(robots)}]

    def _correct_snapshot(self, value: Any, at: float, base: Event) -> list[Event]:
        s, r = self.s, self.s.round
        if r is None or s.phase not in ("bidding", "timer", "demonstrating"):
            raise GameError("snapshot: no round is being played")
        r.snapshot = self._parse_robots(value, "snapshot")
        if s.phase != "demonstrating" or not r.moves:
            s.robots = dict(r.snapshot)
        return [{**base, "snapshot": self._cells(r.snapshot)}]

    def _correct_name(self, value: Any, at: float, base: Event) -> list[Event]:
        if not isinstance(value, Mapping) or not isinstance(value.get("name"), str) \
                or not value["name"].strip():
            raise GameError("name: {\"seat\": n, \"name\": \"Anna\"}")
        seat = self._seat(value)
        name = value["name"].strip()
        if any(p.name.casefold() == name.casefold() for i, p in enumerate(self.s.players)
               if i != seat):
            raise GameError(f"name: another player is called {name}")
        old = self.s.players[seat].name
        self.s.players[seat].name = name
        return [{**base, "seat": seat, "name": name, "previous": old}]

    def _correct_board(self, value: Any, at: float, base: Event) -> list[Event]:
        s = self.s
        if s.phase == "demonstrating":
            raise GameError("board: not during a demonstration")
        board = Board.from_dict(value)
        robots = self._cells(s.robots)  # named on the old board, placed on the new one
        snapshot = self._cells(s.round.snapshot) if s.round is not None else {}
        s.board = board
        s.robots = self._parse_robots(robots) if robots else {}
        if s.round is not None:
            s.round.snapshot = self._parse_robots(snapshot, "snapshot") if snapshot else {}
        return [{**base, "board": board.to_dict()}]


def _shift(state: State, delta: float) -> None:
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


def _chip_parts(chip: str) -> tuple[str, str]:
    if chip == VORTEX:
        return "any", VORTEX
    color, shape = chip.split()
    return color, shape


def _parse_chip(raw: Any) -> str:
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


def replay(commands: list[Mapping[str, Any]]) -> Game:
    """A game rebuilt from its accepted commands, in order (each must be accepted again)."""
    game = Game()
    for c in commands:
        game.apply(c)
    return game
