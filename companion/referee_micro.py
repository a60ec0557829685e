"""The Micro Robots half of the referee: where the camera saw the robot, a layout it read.

:class:`MicroRulings` is what :class:`companion.referee.Referee` decides for a Micro Robots
game on the table: its events' messages, the robot's landings the camera saw (played as
``land`` commands, after a restart first reconciled with the journal), and a layout read off
the board, kept unconfirmed for the page. It also holds what both halves ask first: the game
on the table, and whether it is a Micro Robots one. Like the referee it has no thread, clock,
camera or page of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import micro
from .i18n import Message
from .micro import MicroGame, Space
from .ruling import Outcome, Play, source_words


class MicroRulings:
    """The referee's decisions for a Micro Robots game (the referee sets what is declared
    here; see :class:`companion.referee.Referee`)."""

    _game: Callable[[], Any]
    play: Play
    publish: Callable[[], None]
    wall: Callable[[], float]
    message: str  # a Message, or "" for none
    notice: tuple[str, str, dict[str, Any]] | None
    optimal: dict[str, Any] | None
    verifier: Any
    pending_demo: tuple[int, int] | None
    reconcile: bool
    micro_seen: str | None  # where the camera last saw the micro robot
    proposal: dict[str, Any] | None  # a layout the camera read, unconfirmed

    @property
    def game(self) -> Any:
        return self._game()

    @property
    def micro(self) -> bool:
        return isinstance(self.game, MicroGame)

    def on_micro_event(self, e: Mapping[str, Any]) -> None:
        """One event of a Micro Robots game, as the game applied it."""
        t = e.get("type")
        if t in ("new_game", "game_set_up"):
            # whatever the classic game had running is over
            self.verifier = None
            self.pending_demo = None
            self.optimal = None
            self.message = ""
        elif t in ("rolled", "target_rerolled"):
            self.message = ""
            if t == "target_rerolled" and e.get("reason") == "stall":
                self.message = Message("notice.stall")
                self.notice = (self.message, "notice.stall", {})
        elif t == "demonstration_started":
            self.message = ""

    def on_micro_observation(self, space: str | None, source: str = "camera") -> Outcome:
        if not self.micro:
            return Outcome(False, "no Micro Robots game is on the table")
        seen = None if space is None else Space.parse(space).name
        self.micro_seen = seen
        g = self.game
        if self.reconcile and seen is not None:
            # the first look after a restart: where the journal has the robot, or not news
            robot = g.view()["robot"]
            if g.phase != "demonstrating" or seen == robot:
                self.reconcile = False
                self.message = ""
            else:
                self.message = Message("camera.reconcile", wrong=Message(
                    "reconcile.micro", cell=robot, seen=seen))
            self.publish()
            return Outcome(True)
        if seen is not None and g.phase == "demonstrating":
            v = g.view()
            if seen != v["robot"]:
                out = self.play({"type": "land", "space": seen}, source)
                if not out.ok:
                    self.message = Message("source.said", source=source_words(source),
                                           why=out.reason)
                    self.publish()
                return out
        elif seen is not None and g.phase == "round" and seen != g.view()["robot"]:
            self.message = Message("micro.robot_elsewhere", source=source_words(source),
                                   seen=seen, start=g.view()["robot"])
        self.publish()
        return Outcome(True)


    def on_proposal(self, payload: tuple[Any, Any], source: str = "camera") -> Outcome:
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
                          "source": source, "at": self.wall()}
        self.message = Message("micro.proposal", source=source_words(source))
        self.publish()
        return Outcome(True)
