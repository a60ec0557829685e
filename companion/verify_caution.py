"""What keeps a demonstration's verdict from resting on one misreading (see
:mod:`companion.verify`).

A robot misread on a cell that legal moves happen to reach is counted like a move: nothing in
that one look tells it from the truth. Two facts tell it later:

* a look that would end the demonstration past the bid while several robots changed at once,
  when one of them alone is the whole failure: :meth:`Caution.one_reading` names that robot,
  whose reading is then doubted until a later look agrees;
* a robot seen back on the very cell it stood on before the look that counted its moves, where
  no legal move explains the way back (or, in a look that would otherwise pass the bid, where
  its moves came beside another robot's): those moves were a misreading, and
  :meth:`Caution.rewind` takes them back when every other move ends where it did without them
  — unless the robot was the only one read changed in the look that moved it, and two looks
  with a hand between them read it where its moves left it (:class:`Steady`): one robot's
  reading seen again after a hand is no misreading (as an arrival held for a second look is
  confirmed, :mod:`companion.verify_arrival`), so the way back is the robot's own, and a
  change no legal move explains is judged as any other. (Several robots misread together, as
  under a wrong north, may keep the same wrong cells over several looks: those are rewound.)

:class:`Caution` keeps, for each look that added moves, where the robots stood before it and how
long the route was; :meth:`Caution.unmet` says which rule a claimant on the target still misses.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from typing import Any, NamedTuple

from . import i18n
from .board import Board, Cell
from .i18n import Message
from .rules import Move, Position, validate_route

State = tuple[Cell, ...]


class Rewind(NamedTuple):
    """Moves taken back: ``robot``'s ``moves``, the ``route`` and ``state`` without them, and
    the cell it is ``back`` on."""

    robot: str
    moves: list[Move]
    route: list[Move]
    state: State
    back: Cell

    def fields(self, board: Board) -> dict[str, Any]:
        """The ``rewound`` event's fields: the robot, its moves taken back, the cell it is
        back on, the route, count and cost left, and the message."""
        cell = board.name(self.back)
        return {"robot": self.robot, "moves": [m.text() for m in self.moves], "to": cell,
                "route": [m.text() for m in self.route], "count": len(self.route),
                "cost": sum(m.cost for m in self.route),
                "message": Message("verify.rewound", robot=i18n.color(self.robot), cell=cell,
                                   n=len(self.moves), count=len(self.route))}


class Steady:
    """Where each robot (by index) has been read since its reading last changed, whether it
    changed alone then (no other robot's reading changed in that look), and whether a hand
    passed over the board between two of those readings. One robot's reading made again after
    a hand is its place, not a misreading of the still picture (a misreading of one robot lasts
    one still spell); several robots read changed together may be one misreading kept over
    several looks (a wrong north). :meth:`look` takes each look with every robot read;
    :meth:`held` answers for the looks before the one being judged."""

    def __init__(self, start: State) -> None:
        """``start``: where the robots stand when the demonstration begins (as read)."""
        # robot → (cell, changed alone, a hand within the spell)
        self._now: dict[int, tuple[Cell, bool, bool]] = {
            i: (c, False, False) for i, c in enumerate(start)}
        self._before = dict(self._now)

    def look(self, obs: State, hand: bool) -> None:
        """A look read every robot (``obs``); ``hand``: the board was hidden since the last."""
        self._before = dict(self._now)
        changed = [i for i, c in enumerate(obs) if i in self._now and self._now[i][0] != c]
        for i, cell in enumerate(obs):
            was = self._now.get(i)
            if was is not None and was[0] == cell:
                self._now[i] = (cell, was[1], hand or was[2])
            else:
                self._now[i] = (cell, changed == [i], False)

    def held(self, i: int, cell: Cell) -> bool:
        """Did the looks before this one read robot ``i`` on ``cell`` last, changed alone, and
        twice with a hand between?"""
        return self._before.get(i) == (cell, True, True)


class Caution:
    """The looks that added moves to a demonstration of ``snapshot`` (robots in ``names``
    order) for a ``bid``, and the checks made on them."""

    def __init__(self, snapshot: Position, names: tuple[str, ...], bid: int,
                 explainer: Any = None) -> None:
        self.snapshot = snapshot
        self.explainer = explainer  # what is left of a look, explained afresh (verify_explain)
        self.names = names
        self.bid = bid
        self._looks: list[tuple[State, int]] = []  # (robots before the look, route length)
        # the robots each look took for misread: moves taken back, or a reading doubted
        # (``_misread``: the look now being judged)
        self._back: list[frozenset[int]] = []
        self._misread: set[int] = set()
        self._unmet: tuple | None = None  # the rule last said to be unmet, said once
        # the readings seen again after a hand
        self.steady = Steady(tuple(snapshot.robots[n] for n in names))

    def reset(self, state: State) -> None:
        """Forget the looks (a demonstration taken up from the journal, the robots now on
        ``state``)."""
        self._looks = []
        self._back = []
        self._misread = set()
        self._unmet = None
        self.steady = Steady(state)

    def record(self, state: State, length: int) -> None:
        """A look is about to add moves to a route ``length`` moves long, from ``state``."""
        self._looks.append((state, length))
        self._back.append(frozenset(self._misread))
        self._misread = set()

    def look(self, obs: State, hand: bool) -> None:
        """A look read every robot (``obs``); ``hand``: the board was hidden since the last."""
        self.steady.look(obs, hand)
        self._misread = set()

    def misread(self, names: Iterable[str]) -> None:
        """This look's readings of ``names`` are doubted: whoever else moves in it did not
        move alone (:meth:`excursions`)."""
        self._misread.update(self.names.index(n) for n in names)

    def arrives(self, state: State, obs: State) -> bool:
        """Does this look show a robot that may claim the target arriving on it?"""
        goal = self.snapshot.target
        return goal is not None and any(
            a != b and b == goal.cell and goal.claims(n)
            for n, a, b in zip(self.names, state, obs, strict=True))

    def one_reading(self, state: State, obs: State, search: Callable[[State], Any],
                    fails: Callable[[Any], bool]) -> tuple[int, State, Any] | None:
        """Of several robots changed at once in a look whose moves fail (``fails``), the one
        that, held where it stood, leaves moves (``search``: the explanation, or None) that do
        not fail, the fewest such moves first: ``(its index, the look without it, those
        moves)``; None when no one robot is the whole failure, or when the look without it
        would end in a success: a success is never read from a doubt (at an arrival the look
        is then held for a second one, :mod:`companion.verify_arrival`)."""
        changed = [i for i, (a, b) in enumerate(zip(state, obs, strict=True)) if a != b]
        if len(changed) < 2:
            return None
        best: tuple[int, int, State, Any] | None = None
        goal = self.snapshot.target
        assert goal is not None
        for i in changed:
            if obs[i] == goal.cell and goal.claims(self.names[i]):
                continue  # a robot arriving on the target: the others are doubted, not it
            held = (*obs[:i], state[i], *obs[i + 1:])
            alt = search(held)
            if alt is None or fails(alt) or alt.success_at is not None:
                # a success is no more read from one look than a failure: every move counts
                continue
            cost = sum(step.cost for step in alt.steps)
            if best is None or cost < best[0]:
                best = (cost, i, held, alt)
        return None if best is None else best[1:]

    def excursions(self, route: list[Move], state: State) -> list[tuple[int, Cell, Cell, int]]:
        """Robots seen away in one look alone: moved in a look beside another robot's moves,
        and in the next look back onto the cell they left, or, when that look took another
        robot for misread, back on it now (``route``: the moves so far, the robots now on
        ``state``): ``(index, the cell away, the cell back, what the moves there and back
        cost)`` for each."""
        out = []
        ends = [b for b, _n in self._looks[1:]] + [state]
        for j in range(len(self._looks) - 1):
            (before, start), (after, mid) = self._looks[j], self._looks[j + 1]
            stop = self._looks[j + 2][1] if j + 2 < len(self._looks) else len(route)
            for i, name in enumerate(self.names):
                if after[i] == before[i]:
                    continue
                # back in the next look; or, away beside a robot that look took for misread,
                # back only now (read away over looks that added no moves: a misreading of
                # several robots at once lasts so, and a failure must not rest on it)
                back_next = ends[j + 1][i] == before[i]
                if not back_next and (state[i] != before[i] or not self._back[j] - {i}):
                    continue
                there = route[start:mid]
                if all(m.robot == name for m in there) and not self._back[j] - {i}:
                    # it moved alone: the look's mover, not a misreading (unless the look also
                    # took another robot for misread: its moves taken back, or its reading)
                    continue
                moves = [m for m in there if m.robot == name] + [
                    m for m in route[mid:stop if back_next else len(route)] if m.robot == name]
                out.append((i, after[i], before[i], sum(m.cost for m in moves)))
        return out

    def unmet_events(self, state: State, route: list[Move], cost: int, at: float,
                     event: Callable[..., Any]) -> list[Any]:
        """A ``rule_unmet`` event (made by ``event``) when a claimant stands on the target
        without a success (:meth:`unmet`), once for each placement and reason."""
        unmet = self.unmet(state, route, cost)
        if unmet is None:
            self._unmet = None
            return []
        rule, reason = unmet
        key = (state, reason)
        if key == self._unmet:
            return []
        self._unmet = key
        return [event("rule_unmet", at, rule=rule, reason=reason, count=len(route), cost=cost,
                      message=Message("verify.not_yet", why=reason))]

    def unmet(self, state: State, route: list[Move], cost: int) -> tuple[str | None, Any] | None:
        """With a robot that may claim the target standing on it (``state``) and no success:
        the rule still missing and why (None when no claimant stands there)."""
        goal = self.snapshot.target
        assert goal is not None
        who = next((n for n, c in zip(self.names, state, strict=True)
                    if goal.claims(n) and c == goal.cell), None)
        if who is None:
            return None
        result = validate_route(self.snapshot, route, self.bid)
        reason = result.reason
        if result.reached and not result.meets_bid:
            reason = Message("verify.not_exact", cost=cost, bid=self.bid)
        elif reason is None or result.rule == "not_reached":
            arriving = route[-1].robot if route else None
            if arriving != who:
                reason = Message("verify.not_arriving", robot=i18n.color(who),
                                 goal=goal.message(self.snapshot.board),
                                 arriving=i18n.color(arriving))
        return result.rule, reason

    def rewind(self, state: State, route: list[Move], obs: State,
               explains: Callable[[State], Any] | None, beside: Container[str] = (),
               dry: bool = False) -> Rewind | None:
        """A robot seen (``obs``) back on the cell it stood on before the last look that moved
        it, when no look since moved it and no legal move takes it back there (``explains``:
        the shortest legal moves to a placement, None when none): that look's moves of it are
        taken back if every other move then ends where it did and no shorter route reached the
        target. None when no robot is back so, or the route is not the same without its
        moves. ``explains`` None: a way back is not asked for, but the robot's moves must have
        come beside another robot's (the look would otherwise fail: there and back again
        beside another robot's move is then taken for a misreading, not for two moves that
        pass the bid; ``beside``: robots whose moves were counted in a look that also
        changed a robot still in doubt, which did not move alone)."""
        for i, name in enumerate(self.names):
            if obs[i] == state[i]:
                continue
            for k in range(len(self._looks) - 1, -1, -1):
                before, length = self._looks[k]
                end = self._looks[k + 1][1] if k + 1 < len(self._looks) else len(route)
                mine = [m for m in route[length:end] if m.robot == name]
                if not mine:
                    continue  # the looks are read from the last back: no later one moved it
                if before[i] != obs[i]:
                    break  # the last look that moved it did not start where it is seen now
                if self.steady.held(i, state[i]):
                    break  # read alone where its moves left it, twice a hand apart: no misreading
                if explains is None:
                    if len(mine) == end - length and name not in beside:
                        break  # it moved alone: the look's mover, not a misreading
                elif explains((*state[:i], obs[i], *state[i + 1:])) is not None:
                    break  # a legal way back: it may have moved there and back
                out = self._without(state, route, i, before, length, end)
                if out is not None:
                    if not dry:  # dry: only asked whether it would
                        self._taken_back(k, i, before[i], len(route) - len(out[0]))
                    return Rewind(name, mine, *out, before[i])
                break
        return None

    def _without(self, state: State, route: list[Move], i: int, before: State, length: int,
                 end: int) -> tuple[list[Move], State] | None:
        name = self.names[i]
        rest = self._shortest(route[:length], before, [m for m in route[length:end]
                                                       if m.robot != name])
        kept = route[:length] + rest + route[end:]
        want = (*state[:i], before[i], *state[i + 1:])
        result = validate_route(self.snapshot, kept, self.bid)
        if not result.legal or tuple(result.robots[n] for n in self.names) != want:
            return None
        for k in range(length, len(kept) + 1):
            if validate_route(self.snapshot, kept[:k], self.bid).reached:
                return None  # the route would have ended on the target without those moves
        return kept, want

    def _shortest(self, made: list[Move], before: State, rest: list[Move]) -> list[Move]:
        """The moves left of a look once a misreading's are taken out (``rest``, made from
        ``before`` after the route ``made``), or fewer of them where fewer, in the same order,
        explain where they leave the robots (the misread robot's cell had called for a way
        round)."""
        if len(rest) < 2 or self.explainer is None:
            return rest
        try:
            pos = self.snapshot.with_robots(dict(zip(self.names, before, strict=True)))
            for m in rest:
                pos = pos.push(m)
        except ValueError:
            return rest  # not legal without the misreading: the caller refuses the rewind
        after = tuple(pos.robots[n] for n in self.names)
        if after == before:
            return []  # there and back: no move is needed to explain it
        chosen = self.explainer.search(before, made, sum(m.cost for m in made), after)[0]
        if chosen is None or len(chosen.steps) >= len(rest):
            return rest
        fewer = [s.move for s in chosen.steps]
        left = iter(rest)
        if all(any(m == r for r in left) for m in fewer):  # a subsequence: moves made
            return fewer
        return rest

    def _taken_back(self, k: int, i: int, back: Cell, n: int) -> None:
        """The looks after look ``k`` began with ``n`` moves fewer and robot ``i`` on ``back``."""
        self._misread.add(i)
        self._looks[k + 1:] = [((*s[:i], back, *s[i + 1:]), length - n)
                               for s, length in self._looks[k + 1:]]
