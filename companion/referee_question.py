"""The camera's question, answered by the players watching.

During a demonstration the verifier may doubt a reading ("blue seen on k10 — is that right?")
or hold an arrival for a second look (:attr:`companion.verify.Demonstration.asked`). The
table shows the question as data (:meth:`Question.shown`: each robot asked about, the cell it
was seen on and the cell it is believed to stand on), and the players watching answer it
(:meth:`Question.answer`): yes, the camera is right; no, the robot still stands where it
stood. The answer goes to the verifier with the table's clock, and what it decides is
played as the camera's own events are (a move counted, an illegal move judged).

The demonstrator does not answer: a player could deny their own illegal move. The other
players do (from their phones), and the host (the main screen, with the table PIN); in solo
play the only player answers, as nobody else watches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import i18n
from .i18n import Message
from .ruling import Outcome
from .verify_count import WATCHING

# The seat of an answer that comes from the host (the main screen, with the table PIN).
HOST = None


class Question:
    """The open question of one referee's demonstration, and the players' answer to it.

    ``referee`` is the :class:`companion.referee.Referee` it belongs to (its game, clock,
    verifier and message)."""

    def __init__(self, referee: Any) -> None:
        self.referee = referee

    def _demo(self) -> Any:
        """The running demonstration while its question is open (a verdict, a robot unread
        or a bidder waiting for the board closes it), else None."""
        ref = self.referee
        v = ref.verifier
        demo = v.current if v is not None else None
        if demo is None or ref.micro or ref.game.phase != "demonstrating" \
                or ref.pending_demo is not None:
            return None
        if demo.finished or demo.phase != WATCHING or not demo.asked:
            return None
        return demo

    def shown(self) -> dict[str, Any] | None:
        """The question as the page shows it, or None while none is open: ``robots``, one
        ``{"robot", "seen", "believed"}`` per robot asked about (seen on ``seen``, believed
        to stand on ``believed``, the cell it stood on before the doubt), and the ``seat``
        of the demonstrator, who does not answer (except alone, in ``solo`` play)."""
        demo = self._demo()
        if demo is None:
            return None
        board = demo.board
        robots = [{"robot": n, "seen": board.name(c),
                   "believed": board.name(demo.state[demo.names.index(n)])}
                  for n, c in demo.asked.items()]
        r = self.referee.game.s.round
        return {"robots": robots, "seat": r.demonstrator if r is not None else None,
                "solo": bool(self.referee.game.s.solo)}

    def answer(self, robots: Any, seat: int | None) -> Outcome:
        """The players' answer: robot → ``True`` (the camera saw it right) or ``False`` (it
        still stands where it stood), from ``seat`` (a player's phone) or :data:`HOST` (the
        main screen, with the PIN). Refused, with nothing changed, when no question is open,
        when the demonstrator answers with other players at the table, or when the answer
        is not an object of robots asked about, each with true or false; otherwise the
        verifier's events are played as the camera's are, and the table is shown again."""
        ref = self.referee
        demo = self._demo()
        if demo is None:
            return Outcome(False, Message("answer.none_open"))
        g = ref.game
        r = g.s.round
        if seat is not HOST and r is not None and seat == r.demonstrator and not g.s.solo:
            return Outcome(False, Message("answer.not_demonstrator"))
        asked = demo.asked
        problem = _malformed(robots, asked)
        if problem is not None:
            return Outcome(False, problem)
        events = ref.verifier.answer(dict(robots), ref.now())
        ref.message = ""  # the question is answered: its words go
        for e in events:
            ref.on_verifier_event(e)
        ref.publish()
        return Outcome(True, result=events)


def _malformed(robots: Any, asked: Mapping[str, Any]) -> Message | None:
    """What is wrong with an answer to a question about ``asked`` (robot → cell), or None."""
    names = i18n.listed([i18n.color(n) for n in asked], "list.and")
    if not isinstance(robots, Mapping) or not robots:
        return Message("answer.malformed", robots=names)
    for n, yes in robots.items():
        if n not in asked:
            return Message("answer.not_asked", robot=str(n)[:24], robots=names)
        if not isinstance(yes, bool):
            return Message("answer.not_bool", robot=i18n.color(n))
    return None
