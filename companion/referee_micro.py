"""The Micro Robots half of the referee: where the camera saw the robot, a layout it read.

:class:`MicroRulings` is what :class:`companion.referee.Referee` decides for a Micro Robots
game on the table: its events' messages, the robot's landings the camera saw (played as
``land`` commands, after a restart first reconciled with the journal), and a layout read off
the board, kept unconfirmed for the page. The referee holds it (``referee.micro_rulings``) and
lends it what both halves share (:class:`Shared`): the game on the table, ``play`` and
``publish``, the message on the page. Like the referee it has no thread, clock, camera or page
of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import micro
from .i18n import Message
from .micro import MicroGame, Space
from .ruling import Outcome, Play, source_words


class Shared(Protocol):
    """What the Micro Robots rulings share with the referee that holds them."""

    play: Play
    publish: Callable[[], None]
    wall: Callable[[], float]
    message: str  # a Message, or "" for none
    notice: tuple[str, str, dict[str, Any]] | None
    reconcile: bool

    @property
    def game(self) -> Any: ...

    def forget_round(self) -> None: ...


class MicroRulings:
    """The referee's decisions for a Micro Robots game; ``referee`` is the
    :class:`companion.referee.Referee` that holds them (its :class:`Shared` part)."""

    def __init__(self, referee: Shared) -> None:
        self._ref = referee
        self.seen: str | None = None  # where the camera last saw the micro robot
        self.proposal: dict[str, Any] | None = None  # a layout the camera read, unconfirmed

    @property
    def active(self) -> bool:
        """Is a Micro Robots game on the table?"""
        return isinstance(self._ref.game, MicroGame)

    def on_event(self, e: Mapping[str, Any]) -> None:
        """One event of a Micro Robots game, as the game applied it."""
        ref = self._ref
        t = e.get("type")
        if t in ("new_game", "game_set_up"):
            # whatever the classic game had running is over
            ref.forget_round()
            ref.message = ""
        elif t in ("rolled", "target_rerolled"):
            ref.message = ""
            if t == "target_rerolled" and e.get("reason") == "stall":
                ref.message = Message("notice.stall")
                ref.notice = (ref.message, "notice.stall", {})
        elif t == "demonstration_started":
            ref.message = ""

    def on_observation(self, space: str | None, source: str = "camera") -> Outcome:
        ref = self._ref
        if not self.active:
            return Outcome(False, "no Micro Robots game is on the table")
        seen = None if space is None else Space.parse(space).name
        self.seen = seen
        g = ref.game
        if ref.reconcile and seen is not None:
            # the first look after a restart: where the journal has the robot, or not news
            robot = g.view()["robot"]
            if g.phase != "demonstrating" or seen == robot:
                ref.reconcile = False
                ref.message = ""
            else:
                ref.message = Message("camera.reconcile", wrong=Message(
                    "reconcile.micro", cell=robot, seen=seen))
            ref.publish()
            return Outcome(True)
        if seen is not None and g.phase == "demonstrating":
            v = g.view()
            if seen != v["robot"]:
                out = ref.play({"type": "land", "space": seen}, source)
                if not out.ok:
                    ref.message = Message("source.said", source=source_words(source),
                                          why=out.reason)
                    ref.publish()
                return out
        elif seen is not None and g.phase == "round" and seen != g.view()["robot"]:
            ref.message = Message("micro.robot_elsewhere", source=source_words(source),
                                  seen=seen, start=g.view()["robot"])
        ref.publish()
        return Outcome(True)

    def on_proposal(self, payload: tuple[Any, Any], source: str = "camera") -> Outcome:
        ref = self._ref
        rows, confidence = payload
        problems = micro.check_rows(rows)
        if problems == [f"the board is {micro.SIZE} rows of {micro.SIZE} spaces"]:
            raise ValueError(f"layout proposal: {problems[0]}")
        names = [[None if x in (None, "") else Space.parse(x).name for x in row]
                 for row in rows]
        if confidence is not None:
            ok = (isinstance(confidence, list | tuple) and len(confidence) == micro.SIZE
                  and all(isinstance(r, list | tuple) and len(r) == micro.SIZE for r in confidence)
                  and all(isinstance(c, int | float) and not isinstance(c, bool)
                          and 0 <= c <= 1 for r in confidence for c in r))
            if not ok:
                raise ValueError("layout proposal: confidence is six rows of six numbers "
                                 "from 0 to 1")
            confidence = [[round(float(c), 3) for c in r] for r in confidence]
        self.proposal = {"rows": names, "confidence": confidence, "problems": problems,
                          "source": source, "at": ref.wall()}
        ref.message = Message("micro.proposal", source=source_words(source))
        ref.publish()
        return Outcome(True)
