"""The referee: the table's decisions, with no thread, clock, camera or page of its own.

What the table is told (the game's events, the camera's looks at the board and at the centre
piece, a layout the camera read, the solver's answer) comes in; what the referee decides goes
out as commands for the game (a revealed chip, a robot moved in a demonstration, a verdict, the
round's optimum), played through the ``play`` it was given, and as the state every view reads:
the message on the page, the chip seen, the demonstration followed, the solver's answer.

The table loop (:class:`companion.table.Table`) owns the queue, the threads, the clock and the
journal; it hands each input to the referee on its one thread, so nothing here needs a lock.
A test drives a referee with a plain game, a fake clock and a ``play`` that applies commands
to that game.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from . import i18n
from .i18n import Message
from .micro import MicroGame
from .referee_micro import MicroRulings
from .referee_question import Question
from .rules import ROBOTS, Move, Position, Rules
from .ruling import Outcome as Outcome
from .ruling import Play as Play
from .ruling import source_words as source_words
from .verify import NotRestoredError, RoundVerifier

log = logging.getLogger("companion.table")

# The phases in which a chip may be revealed: the camera reads the centre piece only then.
CHIP_PHASES = ("idle", "round_over")
# The phases in which the robots stand for a round in play (a look must agree with the journal
# after a restart before it counts).
ROUND_PHASES = ("bidding", "timer", "demonstrating")


class Referee:
    """The decisions of one table (a Micro Robots game's are made by the
    :class:`~companion.referee_micro.MicroRulings` it holds, :attr:`micro_rulings`).

    ``game`` returns the game on the table (the store may replace it), ``now`` is the table's
    clock, ``play`` applies a command (:data:`Play`), ``publish`` shows the table's state again,
    ``wall`` is the wall clock a proposal's time is stamped with.

    >>> from companion.game import Game
    >>> game = Game()
    >>> ref = Referee(game=lambda: game, now=lambda: 0.0,
    ...               play=lambda cmd, source: Outcome(True), publish=lambda: None)
    >>> ref.on_chip(("blue triangle", None, None)).ok   # no game set up: nothing to reveal
    True
    """

    def __init__(self, *, game: Callable[[], Any], now: Callable[[], float], play: Play,
                 publish: Callable[[], None], wall: Callable[[], float] = time.time,
                 say: Callable[[list[tuple[str, dict[str, Any]]]], None] | None = None) -> None:
        self._game = game
        self.say = say or (lambda said: None)  # announcements for the voice
        self.now = now
        self.wall = wall
        self.play = play
        self.publish = publish
        self.message = ""
        # the message in catalogue words, for the page to say in its language: (the message
        # text it stands for, key, parameters); stale as soon as the message changes
        self.notice: tuple[str, str, dict[str, Any]] | None = None
        self.optimal: dict[str, Any] | None = None  # the solver's answer for the round
        self.verifier: Any = None  # a companion.verify.RoundVerifier while a round is on
        self.pending_demo: tuple[int, int] | None = None  # a bidder waiting for the board
        self.seen: dict[str, str] | None = None  # the robots as the camera last saw them
        # After a restart (or an undo mid-demonstration) the first look must agree with the
        # journal before any look counts: what differs is shown, never played as moves.
        self.reconcile = False
        # The chip on the centre piece as the camera last saw it settle, the chip revealed
        # last (it may still lie there), and a chip the camera must not reveal again until the
        # piece has been seen bare or with another chip on it.
        self.chip_seen: dict[str, Any] | None = None
        self.chip_last: str | None = None
        self.chip_stale: str | None = None
        self.revealing = ""  # what the page says of a chip being revealed (who read it)
        self.waiting = False  # is the classic game waiting for a chip?
        self.waits = 0  # how many times it has begun to wait: the camera reads afresh each time
        # a Micro Robots game's rulings: where the camera saw its robot, a layout it read
        self.micro_rulings = MicroRulings(self)
        # the camera's open question during a demonstration, and the players' answer to it
        self.question = Question(self)

    @property
    def game(self) -> Any:
        """The game on the table (the store may replace it)."""
        return self._game()

    @property
    def micro(self) -> bool:
        """Is the game on the table Micro Robots?"""
        return isinstance(self.game, MicroGame)

    def forget_round(self) -> None:
        """Whatever the classic game had running is over: no verifier, no bidder waiting,
        no solver's answer."""
        self.verifier = None
        self.pending_demo = None
        self.optimal = None

    # ------------------------------------------------------------ the game's events

    def opened(self) -> None:
        """The journal was replayed: the chip of the round it ends in may still lie there."""
        r = self.game.s.round
        self.chip_last = r.chip if r is not None else None
        self.waiting = self.game.phase in CHIP_PHASES
        self.chip_stale = self.chip_last if self.waiting else None

    def on_event(self, e: Mapping[str, Any]) -> None:
        """One event of the classic game, as the game applied it."""
        t = e.get("type")
        if t in ("chip_revealed", "game_set_up", "new_game"):
            self.message = self.revealing if t == "chip_revealed" else ""
            if t == "chip_revealed" and self.revealing:
                self.notice = (self.message, "notice.chip_read", {"chip": e["chip"]})
            self.chip_seen = None
        if t == "chip_revealed":
            self.chip_last = e["chip"]
        elif t == "demonstration_started":
            self.begin_demo(e["seat"], e.get("bid"))
        elif t == "demonstration_failed":
            if self.verifier is not None:
                self.verifier_call("give_up")
        elif t in ("round_over", "game_over", "new_game"):
            self.verifier = None
            self.pending_demo = None

    def after_events(self) -> None:
        """After a command's events: has the game begun to wait for a chip?"""
        waiting = self.game.phase in CHIP_PHASES
        if waiting and not self.waiting:
            # whatever chip was revealed last may still lie on the piece: not a new one
            self.waits += 1
            self.chip_stale = self.chip_last
        self.waiting = waiting

    def start_round(self, resumed: bool = False) -> Position | None:
        """A chip was revealed (or a restart picks the round up): the round's position, a
        fresh verifier for its demonstration; ``None`` when there is no round to follow."""
        pos = self.position()
        self.optimal = None
        self.verifier = None
        self.pending_demo = None
        if pos is None:
            return None
        self.verifier = RoundVerifier(pos, solve=None)
        if resumed and self.game.phase == "demonstrating":
            self.resume_demo()
        return pos

    def after_undo(self) -> None:
        """An undo took the game back: the verifier takes the demonstration up from there (a
        real table's robots are put back by the referee; until the camera sees that, no look
        counts)."""
        g = self.game
        self.pending_demo = None
        pos = self.position() if g.phase in ROUND_PHASES else None
        if pos is None:
            self.verifier = None
            return
        # a fresh verifier for the round as the game now has it
        self.verifier = RoundVerifier(pos, solve=None)
        if g.phase == "demonstrating":
            self.resume_demo()
            self.reconcile = True

    def looked(self, robots: dict[str, str] | None) -> None:
        """The robots were put back where the game has them, and seen there at once (the
        simulated hand)."""
        self.seen = robots
        if self.verifier is not None:
            self.verifier.observe(self.seen, self.now())

    # ------------------------------------------------------------ the camera's looks

    def position(self, robots: Mapping[str, int] | None = None) -> Position | None:
        s = self.game.s
        r = s.round
        if s.board is None or r is None:
            return None
        goal = self.game._goal(r.chip)
        if goal is None:
            return None
        robots = dict(r.snapshot if robots is None else robots)
        if not robots:
            return None
        return Position(s.board, {k: robots[k] for k in sorted(robots, key=ROBOTS.index)},
                        goal, s.rules)

    def start_cells(self) -> tuple[tuple[str, str], ...]:
        """The round's confirmed start, ``(robot, cell)`` pairs, while the robots still stand
        on it (bidding, the hourglass): the frames of that moment teach the camera this
        table's colours. Empty at any other time."""
        if self.micro:
            return ()
        s = self.game.s
        r = s.round
        if r is None or s.board is None or self.game.phase not in ("bidding", "timer"):
            return ()
        if not r.snapshot or dict(s.robots) != dict(r.snapshot):
            return ()
        return tuple(sorted((n, s.board.name(c)) for n, c in r.snapshot.items()))

    def _robot_allowed(self, robot: str) -> bool:
        rules: Rules = self.game.s.rules
        if robot in ("black", "silver"):
            return robot == rules.fifth_robot
        if robot == "transparent":
            return rules.transparent_robot
        return True

    def on_observation(self, robots: dict[str, str] | None, source: str = "camera") -> Outcome:
        """A stable look at the board. Outside a demonstration it says where the robots stand
        (journaled as ``robots``); during one, the verifier turns it into moves."""
        if self.micro:
            return Outcome(False, "a Micro Robots game is on the table")
        if robots is not None:
            _check_observation(self.game.s.board, robots)
        self.seen = robots
        g = self.game
        if self.reconcile and robots is not None and g.phase in ROUND_PHASES:
            if not self._reconciled(robots):
                self.publish()
                return Outcome(True)
        if robots is None:
            if self.verifier is not None and g.phase == "demonstrating":
                self.verifier.observe(None, self.now())
            self.publish()
            return Outcome(True)
        if g.phase == "demonstrating" and self.verifier is not None:
            if self.pending_demo is not None:
                self.verifier.observe(robots, self.now())
                if self.verifier.ready:
                    self.begin_demo(*self.pending_demo)
                self.publish()
                return Outcome(True)
            events = self.verifier.observe(robots, self.now())
            for e in events:
                self.on_verifier_event(e)
            asked = [e for e in events if e.get("question")]
            if asked and self.game.phase == "demonstrating":
                self.message = asked[-1]["message"]  # the camera's question stays in view
            self.publish()
            return Outcome(True)
        if g.phase in ("setup", "demonstrating", "game_over"):
            self.publish()
            return Outcome(True)
        known = g.view()["robots"]
        wanted = {r: c for r, c in robots.items() if self._robot_allowed(r)}
        # a robot the camera does not see (lifted off, lost under glare) stays where it stood
        wanted = {**known, **wanted} if known else wanted
        if wanted and wanted != known:
            out = self.play({"type": "robots", "robots": wanted}, "camera")
            if not out.ok:
                self.message = Message("camera.refused", why=out.reason)
                self.publish()
            return out
        return Outcome(True)

    def _reconciled(self, robots: Mapping[str, str]) -> bool:
        """Does this look agree with the journal? Until one does (after a restart or an undo),
        looks only say what differs: they are never turned into moves."""
        known = self.game.view()["robots"]
        wrong = [Message("reconcile.seen", robot=i18n.color(r), cell=known[r], seen=robots[r])
                 if r in robots else Message("reconcile.unseen", robot=i18n.color(r),
                                             cell=known[r])
                 for r in known if robots.get(r) != known[r]]
        if wrong:
            self.message = Message("camera.reconcile", wrong=i18n.listed(wrong, "list.comma"))
            return False
        self.reconcile = False
        if getattr(self.message, "key", None) == "camera.reconcile":
            self.message = ""
        return True

    def on_chip(self, payload: tuple[str | None, str | None, str | None],
                 source: str = "camera") -> Outcome:
        """A chip settled on the centre piece (see :meth:`observe_chip`). Only a change
        reaches the table, so a chip the game refuses is refused once, not again and again."""
        if self.micro:
            return Outcome(False, "a Micro Robots game is on the table")
        chip, reason, color = payload
        if chip is not None:
            if not isinstance(chip, str):
                raise ValueError(f"a chip is named like 'blue triangle', not {chip!r}")
            chip = " ".join(chip.lower().split())
        if chip is not None or reason is None:
            # the piece was seen bare, or with a chip read on it: the old chip has gone
            # (a chip left unread might still be the old one)
            if chip != self.chip_stale:
                self.chip_stale = None
        if self.game.phase not in CHIP_PHASES:
            return Outcome(True)  # the round is on: the chip on the piece is the round's
        out = Outcome(True)
        if chip is None and reason is None:
            self.chip_seen = None
        elif chip is None:
            self.chip_seen = {"chip": None, "color": color, "reason": reason,
                               "status": "unread", "source": source}
            self.message = (Message("chip.unread_color", source=source_words(source),
                                    color=i18n.color(color), why=reason)
                            if color and color != "any" else
                            Message("chip.unread", source=source_words(source), why=reason))
        elif chip == self.chip_stale:
            self.chip_seen = {"chip": chip, "color": color, "reason": None,
                               "status": "previous", "source": source}
        else:
            self.revealing = f"The {source} read the chip: {chip}"
            try:
                out = self.play({"type": "reveal", "chip": chip}, source)
            finally:
                self.revealing = ""
            if out.ok:
                return out  # published with the round, saying who read the chip
            self.chip_seen = {"chip": chip, "color": color, "reason": out.reason,
                               "status": "refused", "source": source}
            self.message = Message("chip.refused", source=source_words(source),
                                   chip=i18n.chip(chip), why=out.reason)
        self.publish()
        return out

    def on_verifier_event(self, e: dict[str, Any]) -> None:
        """What the verifier decided (from a look, a done, or the players' answer to its
        question) played in the game as the camera's word."""
        t = e.get("type")
        seat = self.game.s.round.demonstrator if self.game.s.round else None
        if t == "move":
            out = self.play({"type": "move", "move": e["move"], "seat": seat}, "camera")
            if not out.ok:
                self.message = out.reason or ""
        elif t == "rewound" and self.game.phase == "demonstrating":
            # the verifier took back moves it had counted for a misreading: so does the game
            self.message = e.get("message") or ""
            out = self.play({"type": "correct", "moves": e["route"], "by": "camera",
                             "reason": i18n.stored(e["message"])}, "camera")
            if not out.ok:
                self.message = out.reason or ""
        elif t == "illegal" and self.game.phase == "demonstrating":
            self.message = e.get("reason", "")
            # the reason is journaled with the verdict (as its key and values): a restart
            # shows the same words, in each page's language
            self.play({"type": "verdict", "success": False, "by": "camera",
                       "reason": i18n.stored(e.get("reason") or Message("verify.illegal"))},
                      "camera")
        elif t in ("restore", "misplaced", "robot_missing", "occluded", "ambiguous",
                   "rule_unmet", "restored", "robots_back", "doubt", "doubt_cleared", "unsure"):
            # "unsure": the camera could not tell (its question is the message); no verdict
            # is given for it, the players judge
            self.message = e.get("message") or e.get("reason") or ""
            if t in ("doubt", "unsure") and e.get("question"):
                self.say([("message", {"message": e["question"]})])  # asked aloud too

    def holds_done(self) -> Message | None:
        """The player says the route is done while the camera cannot read its end (a robot
        unread, the board hidden, a reading in doubt): no failure is judged from that. The
        camera's verdict is ``unsure``, its question stays on the page and is asked aloud,
        and the referee judges by hand; the reason the done is held, or None: the game
        judges it."""
        v = self.verifier
        demo = v.current if v is not None else None
        if demo is None or self.game.phase != "demonstrating" or not demo.unsure_end:
            return None
        if demo.verdict is None:
            for e in self.verifier_call("done"):
                self.on_verifier_event(e)
        verdict = demo.verdict or {}
        why = verdict.get("message") or verdict.get("reason") or ""
        self.message = Message("refuse.camera_unsure", why=why)
        return self.message

    def begin_demo(self, seat: int, bid: int | None) -> None:
        if self.verifier is None or bid is None:
            return
        name = self.game.s.players[seat].name
        try:
            self.verifier.begin(bid, name, self.now())
            self.pending_demo = None
            self.message = ""
        except NotRestoredError as e:
            self.pending_demo = (seat, bid)
            self.message = i18n.said(e)

    def resume_demo(self) -> None:
        """The verifier takes the demonstration up where the journal has it: the moves so far
        were judged already, so a look showing them is no news."""
        r = self.game.s.round
        if self.verifier is None or r is None or r.demonstrator is None \
                or r.demonstrator not in r.bids:
            return
        name = self.game.s.players[r.demonstrator].name
        try:
            self.verifier.resume(r.bids[r.demonstrator].value, name, list(r.moves), self.now())
            self.pending_demo = None
        except Exception as e:  # noqa: BLE001 - the game goes on by hand; the page says why
            log.warning("resuming the demonstration: %s", e)
            self.message = Message("camera.cannot_follow", why=i18n.said(e))

    def verifier_call(self, what: str) -> list[dict[str, Any]]:
        try:
            events: list[dict[str, Any]] = getattr(self.verifier, what)(self.now())
            return events
        except Exception as e:  # noqa: BLE001 - a verifier problem must not stop play
            log.warning("verifier %s: %s", what, e)
            return []

    def round_number(self) -> int | None:
        if self.micro:
            return None
        r = self.game.s.round
        return r.number if r is not None else None

    def on_solved(self, number: int, pos: Position, result: Any, err: str | None,
                   routes: dict[str, Any] | None = None) -> Outcome:
        """The solver's answer for round ``number`` (or why there is none): kept for the
        page, and the round's optimum played when it is solved."""
        self.optimal = optimal_answer(number, pos, result, err, routes)
        if err is not None:
            self.publish()
            return Outcome(False, err)
        if self.optimal["moves"] and self.optimal["status"] == "solved":
            self.play({"type": "optimum", "optimum": self.optimal["length"], "round": number},
                      "solver")
        else:
            self.publish()
        return Outcome(True)


# ---------------------------------------------------------------- helpers


def _check_observation(board: Any, robots: Mapping[str, str]) -> None:
    """A look at the board names known robots on cells of this board (two robots seen on one
    cell are the verifier's to report); :class:`ValueError` says what is wrong otherwise."""
    for robot, cell in robots.items():
        if robot not in ROBOTS:
            raise ValueError(f"unknown robot {robot!r} in an observation")
        if board is not None:
            board.cell(cell)  # ValueError names a cell off the board

def optimal_answer(number: int, pos: Position, result: Any, err: str | None,
                   routes: dict[str, Any] | None = None) -> dict[str, Any]:
    """The solver's answer for round ``number`` as the page shows it: the route, each step's
    robots, why there is none."""
    if err is not None:
        return {"round": number, "length": None, "moves": [], "steps": [], "start": {},
                "error": err}
    status = getattr(result, "status", "solved" if result is not None else "no_solution")
    moves = _solution_moves(result)
    steps = []
    p = pos
    for m in moves or []:  # no answer (None): no steps, as its length says
        p = p.push(m)
        steps.append({"move": m.text(), "robots": _names(p)})
    return {"round": number, "length": len(moves) if moves is not None else None,
            "moves": [m.text() for m in moves or []], "steps": steps,
            "start": _names(pos), "status": status,
            "reason": getattr(result, "reason", None), "routes": routes}


def _names(pos: Position) -> dict[str, str]:
    return {r: pos.board.name(c) for r, c in pos.robots.items()}


def _solution_moves(result: Any) -> list[Move] | None:
    if result is None:
        return None
    moves = getattr(result, "moves", result)
    if isinstance(result, Mapping):
        moves = result.get("moves")
    if moves is None:
        return None
    out = []
    for m in moves:
        if isinstance(m, Move):
            out.append(m)
        elif isinstance(m, str):
            out.append(Move.parse(m))
        elif isinstance(m, Mapping):
            out.append(Move.parse(f"{m['robot']} {m['direction']}"))
        else:
            out.append(Move.parse(str(m)))
    return out
