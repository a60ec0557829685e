"""An arrival on the target held for a second look (see :mod:`companion.verify`).

At the arrival every move a look needs counts: an over-bid hidden under the same hand as the
arrival stays an over-bid. But the camera may misread a robot standing still in the very look
of the arrival, and only the frames after show the truth; counting that reading's moves tells a
player who did it right that they passed the bid. So a look that shows a claimant arriving and
passes the bid only with the changes of other robots (the arrival with them held where they
stood does not pass it) is **held**: no move is counted and no verdict given until a later look
tells which it was (:meth:`Arrival.settle`):

* with no hand over the board since the held look, those robots are seen back where they stood:
  they were misread (a robot does not move by itself); the look is explained afresh;
* after a hand, they are seen again where the held look saw them: two readings agree, and the
  held look's moves all count (the over-bid);
* after a hand, one is seen back where it stood (a hand may have put it back, restoring the
  board) or on a third cell: the camera cannot tell, the verdict is ``unsure``;
* otherwise (no hand and they are still seen there, or on a third cell) the look stays held.

The demonstration ending while a look is held is ``unsure``: the players judge.

A look that succeeds beside another robot's move is held the same way, every robot it changed
in question (:mod:`companion.verify_claims`): a robot standing still misread onto the target
while another moved reads exactly as an arrival.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, NamedTuple

from .board import Cell
from .i18n import Message
from .rules import Position

State = tuple[Cell, ...]


class Settle(StrEnum):
    """What a later look does to a held arrival."""

    WAIT = "wait"  # nothing told yet: still held
    AFRESH = "afresh"  # the other robots were misread: explain the new look from scratch
    CONFIRM = "confirm"  # the other robots seen there again after a hand: the held moves count
    UNSURE = "unsure"  # a hand may have moved them: the camera cannot tell


class Held(NamedTuple):
    """A held look: what it saw (``obs``), the moves that explain it (``chosen``), the robots
    other than the arriving one it changed (indices), and whether a hand came before it."""

    obs: State
    chosen: Any
    others: tuple[int, ...]
    hand: bool
    success: bool = False  # held for a success beside another robot's move (verify_claims)


class Arrival:
    """The arrival held for a second look in a demonstration of ``snapshot`` (robots in
    ``names`` order), if any (:attr:`held`)."""

    def __init__(self, snapshot: Position, names: tuple[str, ...], bid: int) -> None:
        assert snapshot.target is not None
        self.goal = snapshot.target
        self.board, self.bid = snapshot.board, bid
        self.names = names
        self.held: Held | None = None
        self._hand = False  # a hand over the board since the held look

    def others(self, state: State, obs: State) -> tuple[int, ...]:
        """The robots a look changed other than a claimant arriving on the target."""
        return tuple(i for i, (n, a, b) in enumerate(zip(self.names, state, obs, strict=True))
                     if a != b and not (b == self.goal.cell and self.goal.claims(n)))

    def hold(self, state: State, obs: State, chosen: Any, hand: bool,
             search: Callable[[State], Any], fails: Callable[[Any], bool]) -> bool:
        """Hold this arriving look (``chosen``: its moves, which ``fails``) when other robots
        changed in it and the look with them where they stood is explained (``search``) by
        moves that do not fail: only their readings make the failure. False: judge it now."""
        others = self.others(state, obs)
        if not others:
            return False
        alone = tuple(state[i] if i in others else c for i, c in enumerate(obs))
        alt = search(alone)
        if alt is None or fails(alt):
            return False  # the arrival fails on its own (or needs the others' moves)
        self.held = Held(obs, chosen, others, hand)
        self._hand = False
        return True

    def wait(self, state: State, obs: State, hand: bool) -> bool:
        """Hold an arriving look whose other robots' readings would take back moves counted
        before (a misreading seen back where it stood, :meth:`.Caution.rewind`): that reading
        may be the look's own misreading, which would turn a failure into a success. No moves
        are known for it (``chosen`` None): once confirmed the look is explained afresh. False
        when no other robot changed."""
        others = self.others(state, obs)
        if not others:
            return False
        self.held = Held(obs, None, others, hand)
        self._hand = False
        return True

    def hold_success(self, obs: State, chosen: Any, robots: tuple[int, ...], hand: bool
                     ) -> None:
        """Hold a look whose moves (``chosen``) succeed beside other robots' changes, every
        robot it changed (``robots``, the arriving one too) in question
        (:mod:`companion.verify_claims`): a later look tells which readings were right."""
        self.held = Held(obs, chosen, robots, hand, success=True)
        self._hand = False

    def settle(self, state: State, obs: State, hand: bool) -> Settle:
        """What the look ``obs`` (robots believed on ``state``; ``hand``: the board was hidden
        since the last look) tells of the held look; :meth:`release` it on anything but
        ``WAIT``."""
        held = self.held
        assert held is not None
        self._hand = self._hand or hand
        back = [i for i in held.others if obs[i] == state[i]]
        again = [i for i in held.others if obs[i] == held.obs[i]]
        if self._hand:
            out = Settle.CONFIRM if len(again) == len(held.others) else Settle.UNSURE
        elif back:
            out = Settle.AFRESH
        else:
            return Settle.WAIT
        return out

    def release(self) -> Held:
        """The held look, no longer held."""
        held, self.held = self.held, None
        assert held is not None
        return held

    def cells(self) -> dict[str, Cell]:
        """The held readings in question: robot → the cell the held look saw it on."""
        held = self.held
        return {} if held is None else {self.names[i]: held.obs[i] for i in held.others}

    def doubt(self, state: State, question: Callable[[dict[str, Cell]], Any],
              event: Callable[..., Any], at: float) -> Any:
        """The page's question about the held readings, as a ``doubt`` event (made by
        ``event``; ``question(cells)``: the words asked): why the look is held (the bid
        passed, moves taken back, or a success beside another robot's move)."""
        assert self.held is not None
        rewind = self.held.chosen is None
        success = self.held.success
        cells = self.cells()
        board, question = self.board, question(cells)
        robots = {n: {"seen": board.name(c), "believed": board.name(state[self.names.index(n)])}
                  for n, c in cells.items()}
        if success:
            reason, key = Message("verify.would_succeed"), "verify.doubt_success"
        elif rewind:
            reason, key = Message("verify.would_rewind"), "verify.doubt_rewind"
        else:
            reason, key = Message("verify.would_end", bid=self.bid), "verify.doubt_arrival"
        return event("doubt", at, robots=robots, question=question, reason=reason,
                     message=Message(key, question=question, n=len(cells)))
