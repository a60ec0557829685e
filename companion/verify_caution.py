"""Whether a demonstration's failure would rest on one misreading (see
:mod:`companion.verify`).

A robot misread on a cell that legal moves happen to reach is counted like a move: nothing in
that one look tells it from the truth. When a look would end the demonstration past the bid
while several robots changed at once, and one of them alone is the whole failure,
:meth:`Caution.one_reading` names that robot; its reading is then doubted until a later look
agrees. :meth:`Caution.unmet` says which rule a claimant on the target still misses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import i18n
from .board import Cell
from .i18n import Message
from .rules import Move, Position, validate_route

State = tuple[Cell, ...]


class Caution:
    """The checks made on the looks of a demonstration of ``snapshot`` (robots in ``names``
    order) for a ``bid``."""

    def __init__(self, snapshot: Position, names: tuple[str, ...], bid: int) -> None:
        self.snapshot = snapshot
        self.names = names
        self.bid = bid

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
        moves)``; None when no one robot is the whole failure, when the look without it would
        end in a success, or when a robot is seen arriving on the target: there every move
        hidden under the hand counts, and a success is never read from a doubt."""
        changed = [i for i, (a, b) in enumerate(zip(state, obs, strict=True)) if a != b]
        if len(changed) < 2 or self.arrives(state, obs):
            return None  # at the arrival every move hidden under the hand counts
        best: tuple[int, int, State, Any] | None = None
        for i in changed:
            held = (*obs[:i], state[i], *obs[i + 1:])
            alt = search(held)
            if alt is None or fails(alt) or alt.success_at is not None:
                # a success is no more read from one look than a failure: every move counts
                continue
            cost = sum(step.cost for step in alt.steps)
            if best is None or cost < best[0]:
                best = (cost, i, held, alt)
        return None if best is None else best[1:]

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

