"""Live route verification: turn the camera's stable observations into counted, judged moves.

When the timer runs out the winning bidder slides the real robots. The camera tracker hands
the table loop a *stable observation* (where each robot stands) whenever the board is still,
and ``None`` while a hand covers it. A :class:`Demonstration` watches that stream for one bid:

* each change between two looks is explained by the **shortest sequence of legal moves** that
  produces it (:class:`MoveFinder`): a robot slid round a corner between two looks is two
  moves; two robots moved under one hand are both counted;
* every move is reported with its count against the bid; passing the bid is ``over_bid`` at
  the move that passes it; a change no legal sequence explains is ``illegal`` at once, in
  words ("blue stopped on f7: nothing stops it there") — but only when the readings behind
  it can be trusted (below);
* a change no legal move explains that involves a robot **not moving** (one that changed
  while no hand reached over the board, or the odd one out of a look whose other changes
  are legal, or one already in doubt; when several robots changed at once and no legal moves
  explain them, every one but the robot whose own change is legal, so that all robots seen
  jumping together, as under a wrong north, are never judged) is first taken for a
  misreading: that robot is believed where it stood, the page is asked ("blue seen on k10
  — is that right?") and the next looks are watched. A reading back where the robot
  stood, or a legal move from there, clears the doubt; one that stays unexplained never makes the
  demonstration ``illegal`` on the camera's word alone: the verdict is then ``unsure``, with
  the question, and the players judge. The players may answer the question
  (:meth:`Demonstration.answer`): a reading they say is right is judged as read (the camera
  and the players agree: an illegal move made under the same hand as another robot's legal
  one, which the camera alone cannot tell from a robot standing still misread beside it, is
  then ``illegal``), one they say is wrong is the camera's mistake and the robot is believed
  where it stood. A robot doubted
  only because it changed together with a misreading (robots doubted together, or beside
  another robot's moves later taken back as a misreading) is judged, once the misread ones
  are seen back, as that look's own change; and no explanation moves a robot in doubt (its
  believed cell is only believed);
* a failure never rests on one misreading that legal moves happen to explain
  (:mod:`companion.verify_caution`): a look that would pass the bid while several robots
  changed, when one of them alone is the whole failure, doubts that robot until a later look,
  after a hand, shows it there again; what is left of a look with a misreading in it gives
  no verdict when it would pass the bid or run past the target; and a robot seen back on the
  cell it stood on before the look that counted its moves, where no legal move explains the
  way back (or, in a look that would otherwise pass the bid, where it had moved beside
  another robot), has those moves taken back (``rewound``; at the table the game's moves
  are corrected to match), unless it was the only robot read changed in that look and was
  read there again after a hand: then the way back is its own move, judged as any other.
  At the arrival on the target every move a look needs counts, but a look whose arrival
  passes the bid only with other robots' readings is held, no move counted, for a second
  look (:mod:`companion.verify_arrival`): those robots seen back where they stood with no
  hand since were misread (the look is explained afresh), seen there again after a hand
  confirm it (every move counts), and anything else is ``unsure``;
* the active robot on the target with every rule met is ``success``; the route is judged by
  :func:`companion.rules.validate_route` and nothing else; but a success is read only from a
  look that shows the claimant on the target, an arrival beside another robot's move waits for
  a second look (a robot standing still misread onto the target reads just so), and moves
  that pass the bid only with a robot's excursion one look alone saw are ``unsure``
  (:mod:`companion.verify_claims`);
* a robot lifted off the board, or not seen, pauses judging until it is back: the legal moves
  of the others are still counted (with it where it stood) while they stay within the bid
  short of a success, anything else waits (an unseen robot's moves would go uncounted: with
  one robot never read, an over-bid that moved it passed as a success 200 times in 208); two
  robots seen on one cell pause the count; the demonstration ending while the count waits is
  ``unsure`` (the unread robot's moves were never seen); a robot unseen in a look after a
  hand that moved no robot seen, and back where it stood, may have gone away and back unseen:
  a success with no room left in the bid for those two moves is ``unsure``; after a
  failure the demonstration says which robots go back where and reports ``restored`` once
  the board shows the snapshot again.

A :class:`RoundVerifier` strings the demonstrations of one round together: the next bidder
may begin only once the board is restored, and the round ends with the optimal solution.

A demonstration works through collaborators: :mod:`companion.verify_explain` explains a look
by legal moves (:class:`MoveFinder`, the ``Explainer``), :mod:`companion.verify_doubts`
keeps the readings in doubt and the robots the count waits for, and
:mod:`companion.verify_caution` whether a failing look rests on one reading, and which
counted moves a robot seen back where it stood takes back. The verifier
is pure (no camera, no clock of its own): replaying a recording through the camera's pipeline
is :mod:`companion.verify_replay`'s.

Every event is a JSON-serialisable ``dict`` with a ``"type"``, the time ``"at"`` of the look
that caused it, the ``"bid"`` (and ``"player"`` when known); verdict events also carry
``"verdict"`` (one of :data:`VERDICTS`) and ``"reason"``; most carry a ``"message"`` for the
page. Cells are names (``"c2"``).

=================  ==========================================================================
``move``           ``move`` (``"blue up"``, as :class:`companion.rules.Move` reads it),
                   ``robot``, ``direction``, ``from``, ``to``, ``count`` (moves so far),
                   ``cost`` (against the bid), ``remaining``, ``in_look`` (moves this look
                   hid), ``assumed`` (another reading was possible), ``move_cost`` if not 1
``ambiguous``      before the moves of a look two different sequences explain: ``assumed``,
                   ``alternatives`` (routes as text); the count is the same either way
``success``        ``count``, ``cost``, ``robot`` (who arrived), ``route``
``over_bid``       ``count``/``cost`` at the move that passed the bid, ``reason``, ``route``
``illegal``        ``reason`` in words, ``move_number``, ``seen_robots`` (the look judged)
``doubt``          a reading no legal move explains, of a robot not moving (or one that alone
                   makes an arrival pass the bid, the arrival held): ``robots``
                   (robot → ``{"seen", "believed"}``), ``question`` for the page, ``reason``;
                   the robots are believed where they stood and the count goes on
``doubt_cleared``  the doubted robots are seen where they were believed (or moved legally)
``answered``       the players answered the question (:meth:`Demonstration.answer`):
                   ``robots`` (robot → whether it stands where the camera saw it)
``rewound``        a robot's counted moves taken back as a misreading: ``robot``, ``moves``,
                   ``to`` (the cell it is back on), ``route`` (the moves kept), ``count``,
                   ``cost``
``unsure``         (a verdict) a doubt stays unexplained when the demonstration ends, a
                   robot is still unread then (``unread``), or a change no legal move
                   explains comes while a doubt is open: ``reason``, ``question``; the
                   players judge
``incomplete``     the player pressed done without a success (``reason``)
``gave_up``        the player gave up
``rule_unmet``     a claimant stands on the target but the route is not a success yet
                   (``rule``, ``reason``: no ricochet, bid not met exactly, ...)
``occluded``       the board went out of sight (once per spell)
``robot_missing``  ``robots`` off the board, ``put_back`` (robot → cell); the count waits
``robots_merged``  two robots seen on one cell (a robot knocked); ``put_back``; waits
``robots_back``    every robot is seen again
``misplaced``      a lifted robot came back on a cell no legal move explains: ``robots``
                   (robot → ``{"at", "to"}``); still waiting
``restore``        after a failure, ``robots`` (robot → ``{"at", "to"}``) still out of place
``restored``       the board shows the snapshot again: the next bidder may begin
``demonstration``  (:class:`RoundVerifier`) a bidder begins: ``target``, ``robot``, ``robots``
``solution``       (:class:`RoundVerifier`) the round is over: ``solved``, ``length``,
                   ``cost``, ``route``, ``moves``; ``winner_cost`` and ``optimal`` after a
                   success; ``available: false`` and ``reason`` without a solver
=================  ==========================================================================

>>> from companion.rules import Position
>>> pos = Position.from_dict({"board": {"size": 4, "walls": [["b3", "left"]]},
...     "robots": {"blue": "a1", "red": "d4"}, "target": {"cell": "b3", "robot": "blue"}})
>>> demo = Demonstration(pos, bid=3)
>>> [e["move"] for e in demo.observe({"blue": "d3", "red": "d4"}, at=4.0)]  # round a corner
['blue right', 'blue up']
>>> [e["type"] for e in demo.observe({"blue": "b3", "red": "d4"}, at=6.5)]
['move', 'success']
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .board import Cell, Direction
from .errors import CompanionError
from .i18n import Message
from .rules import Move, Position, format_route, validate_route
from .verify_arrival import Arrival, Settle
from .verify_caution import Caution
from .verify_claims import Check, Claims
from .verify_count import FAILURES as FAILURES
from .verify_count import RESTORED, RESTORING, SUCCEEDED, WAITING, WATCHING, Counting, Verdict
from .verify_count import VERDICTS as VERDICTS
from .verify_count import Event as Event
from .verify_doubts import Doubts, Restore, Unread
from .verify_doubts import misplaced as misplaced

# The search and its explanations live in verify_explain; their names are this module's too.
from .verify_explain import DEFAULT_MAX_GAP as DEFAULT_MAX_GAP
from .verify_explain import DEFAULT_NODE_BUDGET as DEFAULT_NODE_BUDGET
from .verify_explain import MAX_EXPLANATIONS as MAX_EXPLANATIONS
from .verify_explain import Choice, Explainer, SearchResult
from .verify_explain import MoveFinder as MoveFinder
from .verify_explain import State as State
from .verify_explain import Step as Step
from .verify_explain import describe_change as describe_change
from .verify_explain import finder_for as finder_for


class NotRestoredError(CompanionError, RuntimeError):
    """The next bidder may not begin: the board does not show the round's snapshot yet."""


# ---------------------------------------------------------------- the solver, behind one door


def optimal_solution(position: Position, seconds: float = 20.0) -> Event:
    """The round's optimal solution as a ``solution`` event, or one that says why there is none.

    Kept behind this one function so verification works whether or not the solver is present;
    ``seconds`` bounds the search (the event then says it stopped)."""
    try:
        from . import solver
    except ImportError:  # pragma: no cover - the solver ships with the package
        return {"type": "solution", "available": False, "reason": "the solver is not available"}
    try:
        result = solver.solve(position, deadline=time.monotonic() + seconds)
    except Exception as e:  # noqa: BLE001 - a solver failure must not stop the table
        return {"type": "solution", "available": False, "reason": f"the solver failed: {e}"}
    return solution_event(position, result)


def solution_event(position: Position, result: Any) -> Event:
    """A ``solution`` event from what a solver returned: a :class:`companion.solver.Solution`,
    a list of moves, a mapping with ``moves``, or ``None`` for no solution."""
    status = getattr(result, "status", None)
    if result is None or (status is not None and status != "solved"):
        reason = getattr(result, "reason", None) or status or "no solution found"
        return {"type": "solution", "available": True, "solved": False, "reason": reason}
    moves = result.get("moves", []) if isinstance(result, Mapping) else getattr(
        result, "moves", result)
    route = [m if isinstance(m, Move) else _move_from(m) for m in moves]
    check = validate_route(position, route)
    return {
        "type": "solution", "available": True, "solved": True,
        "length": len(route), "cost": check.cost, "route": format_route(route),
        "moves": [m.to_json() for m in route],
    }


def _move_from(m: Any) -> Move:
    if isinstance(m, str):
        return Move.parse(m)
    if isinstance(m, Mapping):
        return Move(m["robot"], Direction.parse(m["direction"]), tuple(m.get("passes", ())))
    raise TypeError(f"not a move: {m!r}")


# ---------------------------------------------------------------- one demonstration


def read_cells(snapshot: Position, robots: Mapping[str, Cell | str]) -> dict[str, Cell]:
    """A look's robots as cells: those not in the round (stray detections, the tracker's
    concern) and unread ones left out; a cell off the board is a :class:`ValueError`."""
    out: dict[str, Cell] = {}
    for name, cell in robots.items():
        if name not in snapshot.robots or cell is None:
            continue
        if isinstance(cell, str):
            cell = snapshot.board.cell(cell)
        if not 0 <= cell < snapshot.board.size:
            raise ValueError(f"robots.{name}: cell {cell} is off the board")
        out[name] = cell
    return out


def played(snapshot: Position, moves: Iterable[Move | str]) -> tuple[list[Move], Position]:
    """The moves (or their texts) played from ``snapshot``, and where they leave the robots;
    :class:`~companion.rules.IllegalMoveError` names the first that cannot be played."""
    pos, route = snapshot, []
    for m in moves:
        move = m if isinstance(m, Move) else Move.parse(m)
        pos = pos.push(move)
        route.append(move)
    return route, pos


@dataclass
class _Look:
    """What the last observations said, to report each problem once."""

    occluded: bool = False


@dataclass
class Demonstration(Counting):
    """One bidder's demonstration, judged live.

    ``snapshot`` is the position when the chip was revealed (board, robots, target, rules);
    feed it the tracker's stable observations with :meth:`observe` and the player's buttons
    with :meth:`done` / :meth:`give_up`; each returns the events it caused.

    ``bid``: the number being demonstrated; ``player``: named in every event; ``max_gap``:
    the most moves one look may hide (a change needing more is not believed); ``node_budget``:
    the search's limit per look. The module docstring shows it at work and lists the events.
    """

    snapshot: Position
    bid: int
    player: str | None = None
    max_gap: int = DEFAULT_MAX_GAP
    node_budget: int = DEFAULT_NODE_BUDGET
    phase: str = field(default=WATCHING, init=False)
    verdict: Event | None = field(default=None, init=False)
    route: list[Move] = field(default_factory=list, init=False)
    cost: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.snapshot.target is None:
            raise ValueError("a demonstration needs the round's target")
        if isinstance(self.bid, bool) or not isinstance(self.bid, int) or self.bid < 1:
            raise ValueError(f"bid: a number of moves from 1, not {self.bid!r}")
        self.names = tuple(self.snapshot.robots)
        self.board = self.snapshot.board
        self.goal = self.snapshot.target
        self.rules = self.snapshot.rules
        self.start_state: State = tuple(self.snapshot.robots[n] for n in self.names)
        self.state: State = self.start_state
        self.finder = finder_for(self.board, self.rules, self.names)
        self._look = _Look()
        # the collaborators: explaining looks, the readings in doubt, the robots unread, …
        self._doubts = Doubts(self.names, self.board, self._event)
        self._explainer = Explainer(self.snapshot, self.finder, self.bid, self.max_gap,
                                    self.node_budget, fixed=self._doubts.cells)
        self._unread = Unread(self.names, self.board, self._event)
        self._caution = Caution(self.snapshot, self.names, self.bid, self._explainer)
        self._restore = Restore(self.snapshot, self._event)  # after a failure
        self._arrival = Arrival(self.snapshot, self.names, self.bid)  # held for a second look
        self._claims = Claims(self.snapshot, self.names, self.bid, self._event, (  # successes
            self._doubts, self._arrival, self._caution, self._explainer))
        self._hands = 0  # spells of the board hidden (a hand over it) in this demonstration
        self._hand_since = False  # … since the last look
        # robots doubted in a look whose other changes were left uncounted (they would have
        # ended it), and those changes: robot → cell (several misread at once may persist)
        self._left: tuple[frozenset[str], dict[str, Cell]] = (frozenset(), {})
        self._last: State | None = None  # the last look with every robot read, as read

    # -- reading
    @property
    def doubts(self) -> dict[str, Cell]:
        """Readings taken for misreadings: robot → the cell seen on (believed where it stood)."""
        return self._doubts.cells

    # -- input
    def resume(self, moves: Iterable[Move | str]) -> None:
        """Take the demonstration up where the journal has it (a restart or an undo): these
        moves were judged already (no event); later looks go on from where they left it."""
        self.route, pos = played(self.snapshot, moves)
        self.cost = sum(m.cost for m in self.route)
        self.state = tuple(pos.robots[n] for n in self.names)
        self.phase = WATCHING
        self._unread.reset()
        self._caution.reset(self.state)
        self._look = _Look()

    def observe(self, robots: Mapping[str, Cell | str] | None, at: float) -> list[Event]:
        """One stable observation (robot name → cell, or ``None`` while the board is hidden)."""
        if self.phase == SUCCEEDED:
            return []
        if robots is None:
            if self._look.occluded or self.phase in (RESTORING, RESTORED):
                return []
            self._look.occluded = True
            self._hands += 1
            self._hand_since = True
            return [self._event("occluded", at, message=Message("verify.hidden"))]
        self._look.occluded = False
        seen = read_cells(self.snapshot, robots)
        if self.phase in (RESTORING, RESTORED):
            # Until the next bidder begins, a robot nudged off its place undoes "restored".
            return self._restore_events(seen, at)
        missing = [n for n in self.names if n not in seen]
        by_cell: dict[Cell, list[str]] = {}
        for n, c in seen.items():
            by_cell.setdefault(c, []).append(n)
        merged = [names for names in by_cell.values() if len(names) > 1]
        self._unread.seen(seen)
        if missing or merged:
            self._unread.look(missing, merged, hidden=self._hand_since and all(
                seen[n] == c for n, c in zip(self.names, self.state, strict=True) if n in seen))
            counted = [] if merged or self._arrival.held else self._count_without(seen, at)
            if self.verdict is not None:
                return counted
            return counted + self._robot_off(missing, merged, at)
        self._unread.unseen = []
        obs = self._last = tuple(seen[n] for n in self.names)
        hand, self._hand_since = self._hand_since, False
        self._caution.look(obs, hand)
        events: list[Event] = []
        if self.phase == WAITING:
            events.append(self._event("robots_back", at, message=Message("verify.robots_back")))
        obs, again = self._doubts.recheck(self.state, obs, at, events, hand=hand)
        if self._arrival.held is not None:
            return events + self._settle(obs, at, hand, again)
        if obs == self.state:
            self._watching()
            return events
        return events + self._explain(obs, at, hand or self._doubts.watched, again)

    @property
    def unsure_end(self) -> bool:
        """Would (or did) the demonstration end ``unsure`` if the player said done now?"""
        if self.verdict is not None:
            return self.verdict.get("verdict") == Verdict.UNSURE
        return bool(self._doubts.cells or self._arrival.held) or self.phase == WAITING \
            or self._look.occluded

    def done(self, at: float) -> list[Event]:
        """The player says the route is complete: judge what the camera saw last."""
        if self.finished:
            return []
        if self._doubts.cells or self._arrival.held:
            return self._unsure(self.state, at, Message(
                "verify.unexplained_end" if self._doubts.cells else "verify.arrival_end"))
        if self.phase == WAITING or self._look.occluded:
            # a robot unread, or the board hidden at the end: moves may have gone unseen
            why, question, fields = self._unread.ending(self.state, self._look.occluded,
                                                        self._doubts)
            return self._ask(at, why, question, **fields)
        result = validate_route(self.snapshot, self.route, self.bid)
        if not self.route:
            reason: str | None = Message("verify.no_move")
        else:
            reason = result.reason or (
                Message("verify.cost_not_bid", count=self.count, cost=self.cost, bid=self.bid)
                if not result.meets_bid else None)
        return self._fail("incomplete", at, reason or Message("verify.not_reached"))

    @property
    def asked(self) -> dict[str, Cell]:
        """The readings the page asks about now (robot → the cell seen): those of an arrival
        held for a second look, else those in doubt; :meth:`answer` takes the players' word."""
        return self._arrival.cells() if self._arrival.held is not None else dict(
            self._doubts.cells)

    def answer(self, robots: Mapping[str, bool], at: float) -> list[Event]:
        """The players answer the page's question about the readings asked about
        (:attr:`asked`; "blue seen on k10 — is that right?", with where blue is believed to
        stand as the other answer): for each robot they answer, ``True`` where the camera saw
        it, ``False`` where it stood (a robot on neither cell is left unanswered). A reading
        said right is read by the camera and agreed by the players: the look is judged afresh
        with it as any look is (a change no legal move explains is then ``illegal``, the
        reason in words); one said wrong is the camera's mistake: the robot is believed where
        it stood, and seen on that cell again it is no news. Readings not answered stay in
        doubt; an arrival held for a second look with a robot unanswered is ``unsure``.
        Nothing changes after a verdict or while a robot is unread; a robot not asked about
        is a ``ValueError``."""
        if self.finished or self.phase != WATCHING or self._last is None:
            return []
        asked = self.asked
        if not robots or any(n not in asked for n in robots):
            raise ValueError(f"answer: robots {', '.join(robots) or 'none'}, but the page "
                             f"asks about {', '.join(asked) or 'none'}")
        events = [self._event("answered", at, robots={n: bool(v) for n, v in robots.items()})]
        if self._arrival.held is not None:
            held = self._arrival.release()
            if held.chosen is None:
                # held for the moves its readings would take back: where the robots stand now
                # does not tell whether they went there and back unseen
                return events + self._unsure(held.obs, at, Message("verify.arrival_unsure"))
            if robots.keys() != asked.keys():
                return events + self._unsure(held.obs, at, Message("verify.arrival_unsure"))
            if all(robots.values()):
                return events + self._accept(held.chosen, held.obs, at)  # agreed: all count
            right = {n: c for n, c in asked.items() if robots[n]}
            self._doubts.denied.update({n: c for n, c in asked.items() if not robots[n]})
            last = tuple(right.get(n, a) if n in asked else c for n, a, c in zip(
                self.names, self.state, held.obs, strict=True))
            sure = self._last == held.obs
        else:
            looks = [self._doubts.since[n] for n in robots if robots[n]]
            right = self._doubts.answered(robots)
            doubted = self._doubts.cells.keys() | self._doubts.denied.keys()
            last = tuple(right.get(n, a if n in doubted else c)
                         for n, a, c in zip(self.names, self.state, self._last, strict=True))
            # the word on a reading judges the look it was doubted in: only while every other
            # robot is believed where it was then (moves since may be what the reading needed)
            # and no change left uncounted beside a doubt is still seen (the players were not
            # asked about it: it may be a misreading lasting, or moves past the bid)
            sure = all(look[j] == a for look in looks for j, (m, a) in enumerate(
                zip(self.names, self.state, strict=True)) if m not in right)
            _doubted, left = self._left
            if any(self._last[self.names.index(n)] == c for n, c in left.items()):
                self._left = (frozenset(), {})
                return events + self._unsure(last, at, Message("verify.unexplained_end"))
        self._left = (frozenset(), {})
        return events + self._judge_answered(last, at, sure)

    def _judge_answered(self, obs: State, at: float, sure: bool) -> list[Event]:
        """A look whose doubtful readings the players answered, judged as read (``sure``:
        the readings said right were doubted in a look as it stands now; else no verdict
        rests on them)."""
        if obs == self.state:
            self._watching()
            return []
        chosen, tried, result = self._search(obs)
        if chosen is None or not sure:
            if self._doubts.cells or not sure:
                return self._unsure(obs, at, self._why(obs, tried, result))
            return self._illegal(obs, at, tried, result)
        return self._accept(chosen, obs, at)

    def give_up(self, at: float) -> list[Event]:
        """The player gives up: the demonstration failed; the board must be restored."""
        if self.finished:
            return []
        return self._fail("gave_up", at, "the player gave up")

    # -- the work
    def _count_without(self, seen: Mapping[str, Cell], at: float) -> list[Event]:
        """The legal moves of the robots seen while others are not (which stood still)."""
        filled = tuple(seen.get(n, c) for n, c in zip(self.names, self.state, strict=True))
        if filled == self.state or any(n not in seen for n in self._doubts.cells):
            return []
        chosen, _tried, _result = self._search(filled)
        self._explainer.last_rejection = None
        if chosen is None or self._passes_bid(chosen) or chosen.success_at is not None:
            # past the bid, or a success, only if the unseen robots stood still: it waits
            return []
        return self._play(chosen, filled, at)

    def _passes_bid(self, chosen: Choice) -> bool:
        """Would these moves pass the bid before they succeed?"""
        steps = chosen.steps[:chosen.success_at] if chosen.success_at else chosen.steps
        return self.cost + sum(s.cost for s in steps) > self.bid

    def _robot_off(self, missing: list[str], merged: list[list[str]], at: float) -> list[Event]:
        afresh, self.phase = self.phase == WATCHING, WAITING  # robots lifted before are back
        return self._unread.off(self.state, missing, merged, at, afresh=afresh)

    def _explain(self, obs: State, at: float, hand: bool = True,
                 again: frozenset[str] = frozenset(), hold: bool = True) -> list[Event]:
        """Explain a new look by the shortest legal moves (:meth:`_search`); a look nothing
        explains is ``illegal`` only when every robot it changed was read with confidence and
        none stood still (:meth:`Doubts.suspects`): else those are believed where they stood,
        asked about, and the rest explained without them (``hand``: the board was hidden
        since the last look; ``again``: robots doubted before, now seen elsewhere)."""
        chosen, tried, result = self._search(obs)
        if (rewound := self._rewind(obs, at, hand, again, hold=hold)) is not None:
            return rewound
        if chosen is None:
            if self.phase == WAITING and self._unread.moved(obs):
                return self._unread.misplaced(obs, at)
            suspects = self._doubts.suspects(
                self.state, obs, again, unwatched=bool(self._hands) and not hand,
                explains=lambda o: self._explainer.probe(self.state, self.route, self.cost, o))
            if not suspects:
                if self._doubts.cells:  # the doubted robots may be what makes it unexplained
                    return self._unsure(obs, at, self._why(obs, tried, result))
                return self._illegal(obs, at, tried, result)
            why = self._why(obs, tried, result)
            events = self._doubts.doubt(self.state, obs, suspects, at, why, hand=hand)
            self._caution.misread(suspects)
            obs = tuple(self.state[i] if n in suspects else c
                        for i, (n, c) in enumerate(zip(self.names, obs, strict=True)))
            if obs == self.state:
                self._watching()
                return events
            chosen, tried, result = self._search(obs)
            if chosen is None:
                return events + self._unsure(obs, at, self._why(obs, tried, result))
            if chosen.past_stop or self._passes_bid(chosen):
                # the rest of a look with a misreading in it would end the demonstration (past
                # the bid, or past the target): no verdict from it; the next looks tell
                self._left = (frozenset(suspects), {n: c for n, a, c in zip(
                    self.names, self.state, obs, strict=True) if a != c})
                self._watching()
                return events
            return events + self._accept(chosen, obs, at)
        if self._passes_bid(chosen):
            if self._beside_doubt(obs):
                self._watching()  # the misreading that came with it may last: the next looks tell
                return []
            # a failure only from readings that agree (companion.verify_caution; at the
            # arrival, every move hidden under the hand counts, or a later look tells)
            arrives = self._caution.arrives(self.state, obs)
            rewound = None if arrives else self._rewind(obs, at, hand, again, True)
            if rewound is not None:
                return rewound
            one = self._caution.one_reading(self.state, obs, lambda o: self._search(o)[0],
                                            self._passes_bid)
            if one is not None:
                i, held, alt = one
                self._caution.misread([self.names[i]])
                return self._doubts.doubt(self.state, obs, {self.names[i]}, at, Message(
                    "verify.would_end", bid=self.bid), confirm=True, hand=hand
                ) + self._accept(alt, held, at)
            if arrives and self._arrival.hold(self.state, obs, chosen, hand,
                                              lambda o: self._search(o)[0], self._passes_bid):
                # an arrival past the bid only with other robots' readings
                return [self._arrival.doubt(self.state, self._doubts.question, self._event, at)]
        elif (ruling := self._claims.check(self.state, obs, chosen, lambda o: self._search(o)[
                0], self._passes_bid)).check != Check.JUDGE:  # a success in question
            return self._claims.events(ruling, self.state, obs, at, hand, self._accept,
                                       self._unsure)
        return self._accept(chosen, obs, at)

    def _beside_doubt(self, obs: State) -> bool:
        """Are this look's changes only those left uncounted beside robots still doubted (seen
        again with them: several robots misread at once can keep their wrong cells over
        several looks, so no failure rests on them while the doubt stands)?"""
        doubted, left = self._left
        changed = {n: c for n, a, c in zip(self.names, self.state, obs, strict=True) if a != c}
        return bool(changed) and bool(doubted & self._doubts.cells.keys()) and all(
            left.get(n) == c for n, c in changed.items())

    def _settle(self, obs: State, at: float, hand: bool, again: frozenset[str]
                ) -> list[Event]:
        """A look while an arrival is held (:mod:`companion.verify_arrival`)."""
        how = self._arrival.settle(self.state, obs, hand)
        if how == Settle.WAIT:
            return []
        if how == Settle.UNSURE:
            events = self._unsure(obs, at, Message("verify.arrival_unsure"))
            self._arrival.release()
            return events
        held = self._arrival.release()
        if how == Settle.CONFIRM:  # agreed; moves taken back: it may have gone there and back
            return self._accept(held.chosen, held.obs, at) if held.chosen is not None else \
                self._unsure(held.obs, at, Message("verify.arrival_unsure"))
        if obs == self.state:
            self._watching()
            return []
        return self._explain(obs, at, held.hand or hand, again)

    def _rewind(self, obs: State, at: float, hand: bool, again: frozenset[str],
                there_and_back: bool = False, hold: bool = True) -> list[Event] | None:
        """A robot back where it stood before the look that counted its moves, which no legal
        move explains (or any, ``there_and_back``): those moves are taken back (an event) and
        the look explained afresh (arriving, with ``hold``: held for a second look first)."""
        explains = None if there_and_back else (
            lambda o: self._explainer.probe(self.state, self.route, self.cost, o))
        beside = self._doubts.beside()
        if hold and self._caution.arrives(self.state, obs) and self._caution.rewind(
                self.state, self.route, obs, explains, beside, dry=True) is not None and \
                self._arrival.wait(self.state, obs, hand):
            return [self._arrival.doubt(self.state, self._doubts.question, self._event, at)]
        back = self._caution.rewind(self.state, self.route, obs, explains, beside)
        if back is None:
            return None
        self.route, self.state = back.route, back.state
        self.cost = sum(m.cost for m in self.route)
        events = [self._event("rewound", at, **back.fields(self.board))]
        released, watched = self._doubts.taken_back(back.robot)  # doubted for its moves
        obs = tuple(released.get(n, c) for n, c in zip(self.names, obs, strict=True))
        if obs == self.state:
            self._watching()
            return events
        return events + self._explain(obs, at, hand or watched, again)

    def _search(self, obs: State) -> tuple[Choice | None, int, SearchResult]:
        """The shortest legal moves from the believed state to ``obs`` (:class:`Explainer`)."""
        return self._explainer.search(self.state, self.route, self.cost, obs)

    def _why(self, obs: State, tried: int, result: SearchResult) -> str:
        return self._explainer.why(self.state, obs, tried, result)


    def _illegal(self, obs: State, at: float, tried: int, result: SearchResult) -> list[Event]:
        reason = self._why(obs, tried, result)
        return self._fail(Verdict.ILLEGAL, at, reason, seen=obs, move_number=self.count + 1,
                          seen_robots={n: self._name(c) for n, c in zip(self.names, obs,
                                                                    strict=True)})


# ---------------------------------------------------------------- a whole round


class RoundVerifier:
    """The demonstrations of one round, in bid order, for the table loop.

    ``begin(bid)`` starts the next bidder's demonstration; it refuses (``NotRestoredError``)
    until the board shows the snapshot again after a failure. ``observe``/``done``/``give_up``
    go to the running demonstration. The round ends on a success or with :meth:`end`, and then
    adds the optimal solution: ``solution`` if the table already has it, else ``solve(snapshot)``
    (run :meth:`end` off the loop's thread if the solver may take a while).
    """

    def __init__(
        self,
        snapshot: Position,
        *,
        solution: Event | None = None,
        solve: Callable[[Position], Event] | None = optimal_solution,
        max_gap: int = DEFAULT_MAX_GAP,
    ) -> None:
        if snapshot.target is None:
            raise ValueError("a round needs a target")
        self.snapshot = snapshot
        self.solution = solution
        self.solve = solve
        self.max_gap = max_gap
        self.current: Demonstration | None = None
        self.history: list[Demonstration] = []
        self.over = False

    @property
    def ready(self) -> bool:
        """May the next bidder begin? (no demonstration running, board as at the reveal)"""
        if self.over:
            return False
        return self.current is None or self.current.restored

    def begin(self, bid: int, player: str | None = None, at: float = 0.0) -> list[Event]:
        if self.over:
            raise NotRestoredError("the round is over")
        if not self.ready:
            assert self.current is not None
            raise NotRestoredError(Message("verify.wait_running") if not self.current.finished
                                   else Message("verify.wait_restore"))
        self.current = Demonstration(self.snapshot, bid, player, self.max_gap)
        self.history.append(self.current)
        target = self.snapshot.target
        assert target is not None
        return [self.current._event(
            "demonstration", at, target=self.snapshot.board.name(target.cell),
            robot=target.robot, robots={n: self.snapshot.board.name(c)
                                        for n, c in self.snapshot.robots.items()},
            message=(Message("verify.shows", name=player, n=bid) if player
                     else Message("verify.bidder_shows", n=bid)))]

    def resume(self, bid: int, player: str | None, moves: Iterable[Move | str],
               at: float = 0.0) -> None:
        """Begin a bidder's demonstration that the journal says has ``moves`` so far (see
        :meth:`Demonstration.resume`): a restart or an undo picks it up, it does not start
        over."""
        self.over = False
        self.current = None
        self.begin(bid, player, at)
        assert self.current is not None
        self.current.resume(moves)

    def observe(self, robots: Mapping[str, Cell | str] | None, at: float) -> list[Event]:
        if self.current is None:
            return []
        return self._after(self.current.observe(robots, at), at)

    def done(self, at: float) -> list[Event]:
        return self._after(self.current.done(at), at) if self.current else []

    def give_up(self, at: float) -> list[Event]:
        return self._after(self.current.give_up(at), at) if self.current else []

    def answer(self, robots: Mapping[str, bool], at: float) -> list[Event]:
        """The players' answer to the page's question (:meth:`Demonstration.answer`)."""
        return self._after(self.current.answer(robots, at), at) if self.current else []

    def end(self, at: float) -> list[Event]:
        """No bidder left (or the chip goes back): the round is over; show the solution."""
        if self.over:
            return []
        self.over = True
        return [self._solution(at)]

    def _after(self, events: list[Event], at: float) -> list[Event]:
        if any(e.get("verdict") == "success" for e in events):
            self.over = True
            events.append(self._solution(at))
        return events

    def _solution(self, at: float) -> Event:
        if self.solution is None:
            if self.solve is None:
                self.solution = {"type": "solution", "available": False,
                                 "reason": "no solver configured"}
            else:
                self.solution = self.solve(self.snapshot)
        e = dict(self.solution)
        e["at"] = at
        best = e.get("cost")
        winner = self.current.verdict if self.current else None
        if best is not None and winner and winner.get("verdict") == "success":
            e["winner_cost"] = winner["cost"]
            e["optimal"] = winner["cost"] == best
        return e
