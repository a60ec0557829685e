"""Explaining a look of a demonstration by legal moves (see :mod:`companion.verify`).

:class:`MoveFinder` finds the shortest sequences of legal moves between two robot placements;
:class:`Explainer` turns a demonstration's new look into the moves it counts, choosing among
explanations of equal length by the rules' own judge; :func:`describe_change` says in words
why a change no legal move explains cannot be one.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from . import i18n
from .board import DIRECTIONS, Board, Cell, Direction
from .i18n import Message
from .rules import (
    MAX_PASSES,
    TRANSPARENT,
    Move,
    Position,
    Rules,
    format_route,
    slide,
    transparent_options,
    validate_route,
)

State = tuple[Cell, ...]

# More moves than this between two looks is not believed: the hand would have been seen.
DEFAULT_MAX_GAP = 4
# Search states expanded before a change is declared unexplained (keeps a look bounded in time).
DEFAULT_NODE_BUDGET = 60_000
# Shortest explanations collected per change (enough to see whether there is an alternative).
MAX_EXPLANATIONS = 24


# ---------------------------------------------------------------- the search


@dataclass(frozen=True)
class Step:
    """One move of an explanation, with the cells it went between and what it cost."""

    move: Move
    start: Cell
    end: Cell
    cost: int


@dataclass
class SearchResult:
    """The shortest explanations of a change (each a tuple of steps), all of one cost."""

    explanations: list[tuple[Step, ...]]
    cost: int | None  # their cost; None when nothing within the bound explains the change
    exhausted: bool = False  # the node budget ran out before the bound was fully searched
    expanded: int = 0


class MoveFinder:
    """The shortest sequences of legal moves that turn one robot placement into another.

    An iterative-deepening best-first search over robot placements, bounded by cost. Slides
    come from :func:`companion.rules.slide` (the robot-free path of each robot from each cell
    in each direction is computed once and cut short at the first robot in the way, which is
    exactly what a slide does); the transparent robot's choices come from
    :func:`companion.rules.transparent_options`. The lower bound that prunes the search: a robot
    not on its final cell needs one more move if that cell lies on one of its slide paths,
    two otherwise.
    """

    def __init__(self, board: Board, rules: Rules, names: Sequence[str]) -> None:
        self.board = board
        self.rules = rules
        self.names = tuple(names)
        self._walks: dict[tuple[str, Cell, Direction], tuple[tuple[Cell, ...], bool]] = {}
        self._reach: dict[tuple[str, Cell], frozenset[Cell]] = {}
        # Only barriers care about a robot's colour; robots no barrier lets through share paths.
        colours = {d.color for d in board.diagonals}
        self._path_key = {n: (n if n in colours or n == TRANSPARENT else "") for n in self.names}
        self._diag_cells = frozenset(d.cell for d in board.diagonals)

    # -- slides
    def _walk(self, robot: str, cell: Cell, d: Direction) -> tuple[tuple[Cell, ...], bool]:
        """The cells a robot crosses from ``cell`` with no other robot on the board, and
        whether that walk would loop for ever."""
        key = (self._path_key[robot], cell, d)
        w = self._walks.get(key)
        if w is None:
            s = slide(self.board, frozenset(), cell, robot, d, (), self.rules)
            w = (s.path[1:], s.rule == "endless_loop")
            self._walks[key] = w
        return w

    def successors(self, state: State, max_cost: int = MAX_PASSES) -> Iterator[Step]:
        """Every legal move from ``state`` (robots in :attr:`names` order)."""
        for i, d, passes, end, cost in self._moves(state, max_cost):
            yield Step(Move(self.names[i], d, passes), state[i], end, cost)

    def _moves(
        self, state: State, max_cost: int
    ) -> Iterator[tuple[int, Direction, tuple[str, ...], Cell, int]]:
        """``successors`` as plain tuples ``(robot index, direction, passes, end, cost)``."""
        occupied = set(state)
        barrier_stop_illegal = self.rules.barrier_stop == "illegal"
        diag_cells = self._diag_cells
        for i, robot in enumerate(self.names):
            start = state[i]
            if robot == TRANSPARENT:
                occ = frozenset(occupied - {start})
                for d in DIRECTIONS:
                    for passes, s in transparent_options(
                        self.board, occ, start, d, self.rules, limit=max(0, max_cost - 1)
                    ):
                        yield i, d, passes, s.end, s.cost
                continue
            for d in DIRECTIONS:
                path, loops = self._walk(robot, start, d)
                end = start
                blocked = False
                for c in path:
                    if c in occupied and c != start:
                        blocked = True
                        break
                    end = c
                if end == start or (loops and not blocked):
                    continue
                if barrier_stop_illegal and end in diag_cells:
                    continue
                yield i, d, (), end, 1

    # -- the lower bound
    def _reachable(self, robot: str, cell: Cell) -> frozenset[Cell]:
        key = (self._path_key[robot], cell)
        r = self._reach.get(key)
        if r is None:
            cells: set[Cell] = set()
            for d in DIRECTIONS:
                cells.update(self._walk(robot, cell, d)[0])
            r = frozenset(cells)
            self._reach[key] = r
        return r

    def _robot_bound(self, i: int, cell: Cell, goal: Cell) -> int:
        if cell == goal:
            return 0
        robot = self.names[i]
        return 1 if robot == TRANSPARENT or goal in self._reachable(robot, cell) else 2

    def _bound(self, state: State, goal: State) -> int:
        return sum(self._robot_bound(i, c, g) for i, (c, g) in enumerate(zip(state, goal,
                                                                               strict=True)))

    # -- the search
    def explain(
        self,
        start: State,
        goal: State,
        max_cost: int,
        *,
        min_cost: int = 1,
        node_budget: int = DEFAULT_NODE_BUDGET,
        limit: int = MAX_EXPLANATIONS,
    ) -> SearchResult:
        """All shortest move sequences (up to ``limit``) from ``start`` to ``goal`` costing at
        most ``max_cost``, looking no shorter than ``min_cost``."""
        if start == goal:
            return SearchResult([()], 0)
        h0 = self._bound(start, goal)
        expanded = 0
        for bound in range(max(h0, min_cost, 1), max_cost + 1):
            found, n, exhausted = self._search(start, goal, bound, node_budget - expanded, limit,
                                               min_cost)
            expanded += n
            if found:
                return SearchResult(found, bound, False, expanded)
            if exhausted:
                return SearchResult([], None, True, expanded)
        return SearchResult([], None, False, expanded)

    def _search(
        self, start: State, goal: State, bound: int, budget: int, limit: int,
        min_cost: int = 1,
    ) -> tuple[list[tuple[Step, ...]], int, bool]:
        """Uniform-cost search pruned by ``g + h <= bound``; the shortest paths are read back
        through every parent that reached a placement at its best cost. Arrivals cheaper than
        ``min_cost`` are ignored (to find the next-longer readings when the rules reject the
        shortest ones)."""
        best: dict[State, int] = {start: 0}
        h_of: dict[State, int] = {start: self._bound(start, goal)}
        parents: dict[State, list[tuple[State, tuple]]] = {start: []}
        buckets: dict[int, list[State]] = {0: [start]}
        # Each robot's share of the bound, by cell: the only part a move changes.
        shares: list[dict[Cell, int]] = [{} for _ in self.names]
        expanded = 0
        g = 0
        reached = False
        while g <= bound and not reached:
            layer = buckets.pop(g, [])
            for state in layer:
                if best.get(state) != g:
                    continue
                if state == goal:
                    reached = True
                    continue
                expanded += 1
                if expanded > budget:
                    return [], expanded, True
                h = h_of[state]
                for move in self._moves(state, bound - g):
                    i, _d, _passes, end, cost = move
                    ng = g + cost
                    if ng > bound:
                        continue
                    share = shares[i]
                    new = share.get(end)
                    if new is None:
                        new = share[end] = self._robot_bound(i, end, goal[i])
                    old_share = share.get(state[i])
                    if old_share is None:
                        old_share = share[state[i]] = self._robot_bound(i, state[i], goal[i])
                    nh = h - old_share + new
                    if ng + nh > bound or (nh == 0 and ng < min_cost):
                        continue
                    nxt = (*state[:i], end, *state[i + 1:])
                    old = best.get(nxt)
                    if old is None or ng < old:
                        best[nxt] = ng
                        h_of[nxt] = nh
                        parents[nxt] = [(state, move)]
                        buckets.setdefault(ng, []).append(nxt)
                    elif ng == old:
                        parents[nxt].append((state, move))
            g += 1
        if goal not in best or best[goal] > bound:
            return [], expanded, False
        paths: list[tuple[Step, ...]] = []

        def back(state: State, tail: tuple[Step, ...]) -> None:
            if len(paths) >= limit:
                return
            if state == start:
                paths.append(tail)
                return
            for parent, (i, d, passes, end, cost) in parents[state]:
                step = Step(Move(self.names[i], d, passes), parent[i], end, cost)
                back(parent, (step, *tail))

        back(goal, ())
        return paths, expanded, False


@lru_cache(maxsize=8)
def finder_for(board: Board, rules: Rules, names: tuple[str, ...]) -> MoveFinder:
    """One finder (and its slide caches) shared by every demonstration on the same board."""
    return MoveFinder(board, rules, names)


# ---------------------------------------------------------------- explaining a look


@dataclass
class Choice:
    """The explanation of a look taken: its moves, the move that succeeds (if one does) and
    the other readings that were possible."""

    steps: tuple[Step, ...]
    success_at: int | None
    alternatives: list[tuple[Step, ...]] = field(default_factory=list)

    def ambiguity(self) -> dict[str, object]:
        """The ``ambiguous`` event's fields: the moves assumed, up to three other readings,
        how many moves, and the message."""
        alts = [format_route(s.move for s in a) for a in self.alternatives[:3]]
        assumed = format_route(s.move for s in self.steps)
        return {"assumed": assumed, "alternatives": alts, "moves": len(self.steps),
                "message": Message("verify.ambiguous", n=len(self.steps), assumed=assumed,
                                   alternatives="; ".join(alts))}

    @property
    def past_stop(self) -> bool:
        """Do these moves reach the target before their last move, so that the look shows the
        robot gone on past it?"""
        return self.success_at is not None and self.success_at < len(self.steps)


def _signature(steps: tuple[Step, ...]) -> tuple:
    """Two explanations that are the same moves in another order are one explanation."""
    return tuple(sorted((s.move.text(), s.start, s.end) for s in steps))


class Explainer:
    """Explains a look of one demonstration by the shortest legal moves from where the robots
    are believed to stand, and chooses among explanations of equal length.

    Given the round's ``snapshot``, the ``finder``, the ``bid`` and the limits (``max_gap``:
    the most moves one look may hide; ``node_budget``: the search's limit per look). What the
    demonstration has made so far (the believed ``state``, the ``route`` and its ``cost``) is
    handed in with each look. :attr:`last_rejection` keeps why the rules refused the last
    shortest reading, for :meth:`why`. ``fixed``: the robots no explanation may move (those
    whose readings are in doubt, believed where they stood: a way round that moves one away
    and back rests on a cell that is only believed), looked up afresh at each search."""

    def __init__(self, snapshot: Position, finder: MoveFinder, bid: int, max_gap: int,
                 node_budget: int, fixed: Container[str] = ()) -> None:
        assert snapshot.target is not None
        self.fixed = fixed
        self.snapshot = snapshot
        self.finder = finder
        self.bid = bid
        self.max_gap = max_gap
        self.node_budget = node_budget
        self.goal = snapshot.target
        self.last_rejection: str | None = None

    def search(self, state: State, route: Sequence[Move], cost: int, obs: State
               ) -> tuple[Choice | None, int, SearchResult]:
        """The shortest legal moves from the believed state to ``obs``: first within the bid
        (plus the move that would pass it), then, only to say whether it is over the bid or
        not legal at all, up to :attr:`max_gap`. Sequences the rules reject (an immediate
        reversal) make the search go on to longer ones. Returns the choice (None when nothing
        explains it), how many moves were tried, and the last search."""
        within = max(1, min(self.bid - cost + 1, self.max_gap))
        low, tried = 1, 0
        chosen: Choice | None = None
        result = SearchResult([], None)
        while chosen is None and low <= self.max_gap:
            high = within if low <= within else self.max_gap
            result = self.finder.explain(state, obs, high, min_cost=low,
                                         node_budget=self.node_budget)
            tried = high
            if result.explanations:
                assert result.cost is not None
                chosen = self._choose(result, route)
                low = result.cost + 1
            elif result.exhausted:
                break
            else:
                low = high + 1
        return chosen, tried, result

    def probe(self, state: State, route: Sequence[Move], cost: int, obs: State) -> int | None:
        """What the shortest legal moves to ``obs`` cost (None when none explains it), leaving
        :attr:`last_rejection` as it was: a question asked aside, not a look judged."""
        kept = self.last_rejection
        chosen = self.search(state, route, cost, obs)[0]
        self.last_rejection = kept
        return None if chosen is None else sum(s.cost for s in chosen.steps)

    def why(self, state: State, obs: State, tried: int, result: SearchResult) -> str:
        """Words for a change no legal sequence explains (consumes the last rejection)."""
        board = self.snapshot.board
        reason = describe_change(self.finder, state, obs, self.snapshot.rules)
        rejection, self.last_rejection = self.last_rejection, None
        if reason is not None:
            return reason
        if rejection:
            return rejection
        changes = i18n.listed([
            Message("verify.change", robot=i18n.color(n), start=board.name(a),
                    end=board.name(b))
            for n, a, b in zip(self.finder.names, state, obs, strict=True) if a != b],
            "list.comma")
        if result.exhausted:
            return Message("verify.no_sequence_gave_up", changes=changes)
        return Message("verify.no_sequence", changes=changes, tried=tried)

    def _choose(self, result: SearchResult, route: Sequence[Move]) -> Choice | None:
        """Among explanations of equal length: the legal ones (by the rules' own judge); of
        those, one that succeeds (with all its moves: :meth:`_judge`); note whether a
        different one was possible."""
        legal: list[Choice] = []
        for steps in result.explanations:
            if any(s.move.robot in self.fixed for s in steps):
                continue
            c = self._judge(steps, route)
            if c is not None:
                legal.append(c)
        if not legal:
            self.last_rejection = self._rejection(result.explanations[0], route)
            return None
        # Every move a look needs was made. Where some order of them ends on the arrival,
        # that is the order (the player stops on arriving): they all count, and the look
        # succeeds only if the route with all of them does. An order arriving earlier would
        # leave the rest uncounted, an over-bid judged a success. Only moves that cannot
        # have come before the arrival are left for after it, and do not undo the success.
        last = [c for c in legal if self._ends_arriving(c.steps)]
        if last:
            legal = [c if c.success_at == len(c.steps) else Choice(c.steps, None)
                     for c in last]
        # A success needs the claimant seen on the target: moves that stop it there and go
        # on are a reading no look showed, taken only where no other reading of the same
        # length leaves the target alone (companion.verify_claims judges those).
        if any(c.success_at is None for c in legal):
            legal = [c for c in legal if not self._gone_on(c)]
        # a success first; of those, the reading in which arriving is the last move seen
        legal.sort(key=lambda c: (c.success_at is None, c.success_at != len(c.steps),
                                  c.success_at or 0))
        chosen = legal[0]
        sig = _signature(chosen.steps)
        others: list[tuple[Step, ...]] = []
        sigs = {sig}
        for c in legal[1:]:
            s = _signature(c.steps)
            if s not in sigs:
                sigs.add(s)
                others.append(c.steps)
        chosen.alternatives = others
        return chosen

    def _judge(self, steps: tuple[Step, ...], made: Sequence[Move]) -> Choice | None:
        route = [*made, *(s.move for s in steps)]
        result = validate_route(self.snapshot, route, self.bid)
        if not result.legal:
            return None
        success_at = None
        for k in range(1, len(steps) + 1):
            s = steps[k - 1]
            if self.goal.claims(s.move.robot) and s.end == self.goal.cell:
                r = validate_route(self.snapshot, route[: len(made) + k], self.bid)
                if r.reached and r.meets_bid:
                    success_at = k
                    break
        return Choice(steps, success_at)

    def _gone_on(self, choice: Choice) -> bool:
        """Do these moves stop a claimant on the target and move it on past it?"""
        if choice.success_at is None:
            return False
        robot = choice.steps[choice.success_at - 1].move.robot
        return [s.end for s in choice.steps if s.move.robot == robot][-1] != self.goal.cell

    def _ends_arriving(self, steps: tuple[Step, ...]) -> bool:
        """Is the last of these moves a claimant arriving on the target?"""
        return self.goal.claims(steps[-1].move.robot) and steps[-1].end == self.goal.cell

    def _rejection(self, steps: tuple[Step, ...], made: Sequence[Move]) -> str | None:
        route = [*made, *(s.move for s in steps)]
        return validate_route(self.snapshot, route, self.bid).reason


# ---------------------------------------------------------------- saying what went wrong


def describe_change(finder: MoveFinder, before: State, after: State, rules: Rules) -> str | None:
    """Words for a change no legal move explains, when one robot's slide says why; else None.

    "blue stopped on f7: nothing stops it there", "blue cannot get from f2 to f14 going up:
    a wall stops it on f9", "blue up from f2 would stop on the barrier at f6"."""
    moved = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
    if len(moved) > 1:
        # Speak of the robot whose own change no short legal sequence explains.
        def alone_explained(i: int) -> bool:
            solo = (*before[:i], after[i], *before[i + 1:])
            return bool(finder.explain(before, solo, 2, node_budget=2_000).explanations)

        moved.sort(key=alone_explained)
    for i in moved:
        robot = finder.names[i]
        if robot == TRANSPARENT:
            continue
        a, b = before[i], after[i]
        # Judge the slide among the others as they stood before and as they stand after: a
        # robot that moved under the same hand may have been the stop.
        placements = [before]
        if any(before[j] != after[j] for j in moved if j != i):
            placements.append((*after[:i], a, *after[i + 1:]))
        for d in DIRECTIONS:
            words = {_slide_words(finder, rules, place, i, a, b, d) for place in placements}
            if len(words) == 1 and None not in words:
                return words.pop()
    return None


def _slide_words(finder: MoveFinder, rules: Rules, place: State, i: int, a: Cell, b: Cell,
                 d: Direction) -> str | None:
    """Why robot ``i`` cannot have slid from ``a`` to ``b`` going ``d`` among ``place``."""
    board = finder.board
    robot = finder.names[i]
    occ = frozenset(c for j, c in enumerate(place) if j != i)
    s = slide(board, occ, a, robot, d, (), rules)
    name_a, name_b = board.name(a), board.name(b)
    if b in s.path[1:]:
        if b != s.end and board.diagonal_at(b) is not None:
            return Message("why.barrier_turns", robot=i18n.color(robot), cell=name_b,
                           end=board.name(s.end))
        if b != s.end:
            return Message("why.no_stop", robot=i18n.color(robot), cell=name_b,
                           dir=i18n.direction(d.word), start=name_a, end=board.name(s.end))
        if s.error:
            return Message("why.slide", robot=i18n.color(robot), dir=i18n.direction(d.word),
                           start=name_a, why=s.error)
        return None
    if s.final_direction != d:
        return None
    line, c = [], s.end
    while (c := board.neighbour(c, d)) is not None:
        line.append(c)
    if b not in line:
        return None
    who = next((finder.names[j] for j, c in enumerate(place) if c == line[0] and j != i), None)
    what = (Message("why.robot_on", robot=i18n.color(who), cell=board.name(line[0])) if who
            else Message("why.wall"))
    return Message("why.blocked", robot=i18n.color(robot), start=name_a, cell=name_b,
                   dir=i18n.direction(d.word), what=what, end=board.name(s.end))
