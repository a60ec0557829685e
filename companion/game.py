"""The game: rounds, the chip deck, bids, the timer, the demonstration queue, scores, solo play.

Pure: no I/O, no threads, no clock of its own. Every command carries its time ``at`` (monotonic
seconds, chosen by the caller), and :meth:`Game.advance` turns the passing of time into events
(the soft no-bid timeout, the timer running out). The random source is seeded by ``setup``.
The same commands at the same times always give the same game, which is what lets
:mod:`companion.store` rebuild a table from its journal.

The rooms of a game: :class:`Game` reads each command and decides whether it stands (here);
:mod:`companion.engine` applies it, rolls a refused one back and keeps the undo stack;
:mod:`companion.game_state` is the state and what the clock and the verdicts do to it;
:mod:`companion.corrections` the referee's corrections; :mod:`companion.game_view` the view.

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
                 ``snapshot`` {name: cell}, ``name`` {"seat", "name"}, ``board`` (a board),
                 ``moves`` [move, …] (a demonstration's moves with some taken back, in order).
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
import random
from collections.abc import Mapping
from typing import Any

from . import corrections, game_view, i18n
from .board import BoardError
from .engine import CommandEngine
from .game_course import Course
from .game_state import (
    CHIPS,
    MAX_BID,
    MAX_PLAYERS,
    MAX_REASON,
    PHASES,
    Bid,
    Command,
    Event,
    Failure,
    GameError,
    Player,
    Round,
    State,
    Timer,
    parse_chip,
    shift,
)
from .game_view import target_view
from .i18n import Message
from .rules import Goal, InvalidMoveError, Move, PositionError

COMMANDS = (
    "setup", "reveal", "bid", "start_timer", "move", "done", "give_up", "verdict", "robots",
    "optimum", "undo", "correct", "tick", "resume", "new_game", "hint",
)
# Commands that record what the table sees or knows rather than what a player did: ``undo``
# passes over them and keeps them.
OBSERVATIONS = frozenset({"robots", "optimum", "tick", "hint"})


def _detail(reason: Any) -> Any:
    """What is wrong with a route's failing move, without its ``move N (…)`` label."""
    if isinstance(reason, Message) and reason.key == "route.move":
        return reason.args["why"]
    return str(reason).split("): ", 1)[-1]


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

    @property
    def course(self) -> Course:
        """What the clock and the verdicts do to the state in hand (:attr:`s`)."""
        return Course(self.s)

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
        shift(state, delta)

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
        """Everything the page and the LEDs show, JSON-able (:func:`companion.game_view.view`).
        ``now`` only sets the timer's ``remaining``; it does not advance the game."""
        return game_view.view(self.s, bool(self._undo), now)

    def summary(self) -> dict[str, Any]:
        """What history keeps of this game: players, chips, winners, every finished round."""
        return game_view.summary(self.s)

    def _goal(self, chip: str) -> Goal | None:
        """The goal a chip sets on this board (the referee's and the solver's question)."""
        return self.s.goal(chip)

    # -- the engine's hooks and the commands' helpers
    def _advance(self, now: float) -> list[Event]:
        return self.course.advance(now)

    def _snapshot(self) -> State:
        memo: dict[int, Any] = {}
        if self.s.board is not None:
            memo[id(self.s.board)] = self.s.board
        return copy.deepcopy(self.s, memo)

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

    # -- commands
    def _do_tick(self, cmd: Command, at: float) -> list[Event]:
        return []

    def _do_setup(self, cmd: Command, at: float) -> list[Event]:
        if self.s.phase != "setup":
            raise GameError("a game is already set up; start a new game first")
        return self.course.set_up(cmd, at, self._rng)

    def _do_new_game(self, cmd: Command, at: float) -> list[Event]:
        self.s = State(now=at)
        self._undo.clear()
        events: list[Event] = [{"type": "new_game", "at": at}]
        if "players" in cmd:
            events += self.course.set_up(cmd, at, self._rng)
        return events

    def _do_reveal(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        self._need_phase("reveal", "idle", "round_over")
        if not s.deck:
            raise GameError(Message("refuse.deck_empty"))
        if cmd.get("chip") is not None:
            chip = parse_chip(cmd["chip"])
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
                                "target": target_view(self.s, chip),
                                "snapshot": self.s.cells(s.robots)}]
        if s.solo:
            events += self.course.start_timer(at, "solo")
        return events

    def _do_start_timer(self, cmd: Command, at: float) -> list[Event]:
        self._need_phase("start_timer", "bidding")
        return self.course.start_timer(at, "by_hand")

    def _do_bid(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        seat = self.s.seat(cmd)
        self._need_phase("bid", "bidding", "timer")
        r = s.round
        assert r is not None
        value = cmd.get("value")
        name = self.s.name(seat)
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
            return events + self.course.next_demonstrator(at)
        if s.phase == "bidding":
            events += self.course.start_timer(at, "first_bid")
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
            seat = self.s.seat(cmd)
            if seat != r.demonstrator:
                raise GameError(Message("refuse.not_your_demonstration",
                                        name=self.s.name(r.demonstrator),
                                        other=self.s.name(seat)))
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
        result = self.s.judge(moves)
        events: list[Event] = []
        if was_timer:
            events.append({"type": "timer_paused", "at": at,
                           "remaining": r.timer.remaining(at)})
            events.append({"type": "demonstration_started", "at": at, "seat": 0,
                           "name": self.s.name(0), "bid": None})
        name = self.s.name(seat)
        if not result.legal and result.rule == "no_move":
            # Nothing moved on the table, so nothing was demonstrated: refuse, do not fail.
            raise GameError(Message("refuse.no_move", move=i18n.move(move.robot,
                                    move.direction.word, " ".join(move.passes)),
                                    why=_detail(result.reason)))
        if not result.legal:
            r.moves = moves
            return events + self.course.fail(at, Message("fail.illegal", name=name,
                                                   why=result.reason), "rules", Failure.ILLEGAL)
        r.moves = moves
        s.robots = dict(result.robots)
        events.append({"type": "moved", "at": at, "seat": seat, "move": move.text(),
                       "moves_made": len(moves), "cost": result.cost,
                       "robots": self.s.cells(s.robots), "reached": result.reached})
        bid = r.bids[seat].value if seat in r.bids else None
        if bid is not None and result.cost > bid:
            return events + self.course.fail(
                at, Message("fail.over_bid", name=name, cost=result.cost, bid=bid), "rules",
                Failure.OVER_BID)
        if result.reached and (bid is None or result.meets_bid):
            return events + self.course.succeed(at, "rules", moves)
        return events

    def _do_done(self, cmd: Command, at: float) -> list[Event]:
        seat = self._demonstrator(cmd, "done")
        r = self.s.round
        assert r is not None
        name = self.s.name(seat)
        if not r.moves:
            return self.course.fail(at, Message("fail.no_moves", name=name), "rules",
                              Failure.INCOMPLETE)
        result = self.s.judge(r.moves)
        if result.reached and result.meets_bid is not False:
            return self.course.succeed(at, "rules", list(r.moves))
        if result.reached:
            bid = r.bids[seat].value
            return self.course.fail(at, Message("fail.not_exact", name=name, cost=result.cost,
                                          bid=bid), "rules", Failure.OVER_BID)
        return self.course.fail(at, Message("fail.route", name=name, why=result.reason), "rules",
                          Failure.INCOMPLETE)

    def _do_give_up(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        seat = self.s.seat(cmd)
        r = s.round
        if s.phase == "demonstrating" and r is not None:
            if seat == r.demonstrator:
                return self.course.fail(at, Message("fail.gave_up", name=self.s.name(seat)), seat,
                                  Failure.GAVE_UP)
            b = r.bids.get(seat)
            if b is not None and b.status == "waiting":
                b.status = "withdrawn"
                return [{"type": "bid_withdrawn", "at": at, "seat": seat,
                         "name": self.s.name(seat)}]
            raise GameError(Message("refuse.no_waiting_bid", name=self.s.name(seat)))
        if s.phase == "timer" and s.solo:
            left = r.timer.remaining(at) if r is not None else 0
            assert r is not None
            r.timer.used, r.timer.running = r.timer.duration, False
            s.players[0].face_down.append(r.chip)
            return [{"type": "timer_ended", "at": at, "run": r.timer.run, "remaining": left},
                    {"type": "chip_won", "at": at, "seat": 0, "name": self.s.name(0),
                     "chip": r.chip, "face": "down"}] + self.course.end_round(at, None)
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
            return self.course.succeed(at, by, list(r.moves))
        # the camera (or the referee) may say why: kept with the verdict, it is an illegal
        # demonstration in those words
        why = cmd.get("reason")
        if isinstance(why, Mapping):  # a message the camera gave, as its key and values
            told = i18n.from_stored(dict(why))
            if told is not None:
                return self.course.fail(at, told, by, Failure.ILLEGAL)
        if isinstance(why, str) and why.strip():  # prose: a referee's words, an old journal
            return self.course.fail(at, " ".join(why.split())[:MAX_REASON], by, Failure.ILLEGAL)
        return self.course.fail(at, Message("fail.judged", name=self.s.name(seat)), by,
                          Failure.ILLEGAL)

    def _do_robots(self, cmd: Command, at: float) -> list[Event]:
        s = self.s
        if s.phase == "setup":
            raise GameError(Message("refuse.not_set_up"))
        robots = self.s.parse_robots(cmd.get("robots"))
        if s.phase == "demonstrating":
            if robots == s.robots:
                return []
            raise GameError(Message("refuse.robots_demonstrating"))
        s.robots = robots
        if s.phase in ("bidding", "timer") and s.round is not None:
            s.round.snapshot = dict(robots)
        return [{"type": "robots_placed", "at": at, "robots": self.s.cells(robots)}]

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
        return corrections.correct(self.s, cmd, at)


def replay(commands: list[Mapping[str, Any]]) -> Game:
    """A game rebuilt from its accepted commands, in order (each must be accepted again)."""
    game = Game()
    for c in commands:
        game.apply(c)
    return game


# The game's vocabulary, defined beside its state and read from here as before.
__all__ = [
    "CHIPS", "COMMANDS", "MAX_BID", "MAX_PLAYERS", "MAX_REASON", "OBSERVATIONS", "PHASES",
    "Bid", "Command", "Event", "Failure", "Game", "GameError", "Player", "Round", "State",
    "Timer", "replay",
]
