"""The referee: the table's decisions, driven with a plain game and a fake clock.

Each test plays the part of the table loop: a command the referee sends is applied to the game
at the fake clock's time and its events are handed back, as the loop does after journaling."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import SMALL_BOARD as BOARD
from conftest import SMALL_ROBOTS as ROBOTS

from companion.game import Game, GameError
from companion.referee import Outcome, Referee
from companion.rules import Move


class Loop:
    """The table loop's part: one game, one fake clock, every command played and its events
    told to the referee; ``played`` keeps what the referee asked for."""

    def __init__(self) -> None:
        self.game = Game()
        self.t = 0.0
        self.played: list[tuple[dict[str, Any], str]] = []
        self.published = 0
        self.ref = Referee(game=lambda: self.game, now=lambda: self.t, play=self.play,
                           publish=self.publish)

    def play(self, cmd: dict[str, Any], source: str) -> Outcome:
        self.played.append((dict(cmd), source))
        try:
            events = self.game.apply({**cmd, "at": self.t})
        except GameError as e:
            return Outcome(False, str(e))
        for e in events:
            self.ref.on_event(e)
        self.ref.after_events()
        self.publish()
        return Outcome(True, result=events)

    def publish(self) -> None:
        self.published += 1

    def setup(self) -> None:
        self.play({"type": "setup", "players": ["Anna", "Ben"], "seed": 7, "board": BOARD,
                   "robots": ROBOTS}, "page")
        self.played.clear()


@pytest.fixture
def loop() -> Loop:
    table = Loop()
    table.setup()
    return table


def test_a_chip_read_while_the_game_waits_is_revealed_saying_who_read_it(loop):
    out = loop.ref.on_chip(("Blue  Triangle", None, "blue"), "camera")
    assert out.ok and loop.played == [({"type": "reveal", "chip": "blue triangle"}, "camera")]
    assert loop.game.phase == "bidding"
    assert loop.ref.message == "The camera read the chip: blue triangle"
    assert loop.ref.notice == (loop.ref.message, "notice.chip_read", {"chip": "blue triangle"})


def test_the_chip_just_played_is_not_revealed_again_until_the_piece_is_seen_bare(loop):
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    loop.play({"type": "bid", "seat": 0, "value": 1}, "buttons")
    loop.t += 61
    loop.play({"type": "verdict", "success": False, "by": "table", "reason": "gave up"}, "page")
    assert loop.game.phase in ("round_over", "idle")
    loop.played.clear()
    loop.ref.on_chip(("blue triangle", None, "blue"), "camera")
    assert loop.played == [] and loop.ref.chip_seen["status"] == "previous"
    loop.ref.on_chip((None, None, None), "camera")  # the piece bare: the old chip has gone
    assert loop.ref.chip_seen is None
    loop.ref.on_chip(("blue triangle", None, "blue"), "camera")
    assert loop.played == [({"type": "reveal", "chip": "blue triangle"}, "camera")]


def test_an_unread_chip_is_left_for_the_players_to_pick_by_hand(loop):
    out = loop.ref.on_chip((None, "glare", "red"), "camera")
    assert out.ok and loop.played == []
    assert loop.ref.chip_seen == {"chip": None, "color": "red", "reason": "glare",
                                  "status": "unread", "source": "camera"}
    assert loop.ref.message == ("The camera sees a red chip but cannot read it: glare. "
                                "Pick the chip by hand.")


def test_a_chip_the_game_refuses_is_shown_with_the_reason_and_not_played_twice(loop):
    out = loop.ref.on_chip(("purple hexagon", None, None), "camera")
    assert not out.ok and loop.ref.chip_seen["status"] == "refused"
    assert loop.ref.message.startswith("The camera read the purple hexagon chip: ")
    assert loop.game.phase == "idle"


def test_a_chip_seen_during_a_round_is_the_rounds_own(loop):
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    loop.played.clear()
    assert loop.ref.on_chip(("red circle", None, "red"), "camera").ok
    assert loop.played == [] and loop.game.phase == "bidding"


def test_a_look_outside_a_demonstration_moves_the_robots_it_sees_and_keeps_the_rest(loop):
    loop.ref.on_observation({"red": "c3", "blue": "a1"}, "camera")
    (cmd, source), = loop.played
    assert source == "camera" and cmd["type"] == "robots"
    assert cmd["robots"] == {**ROBOTS, "red": "c3"}
    assert loop.ref.seen == {"red": "c3", "blue": "a1"}


def test_a_look_naming_no_robot_of_the_game_is_refused():
    loop = Loop()
    loop.setup()
    with pytest.raises(ValueError, match="unknown robot 'pink'"):
        loop.ref.on_observation({"pink": "a1"}, "camera")


def test_after_a_restart_a_look_that_disagrees_with_the_journal_is_shown_never_played(loop):
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    loop.played.clear()
    loop.ref.reconcile = True
    loop.ref.on_observation({**ROBOTS, "red": "c5"}, "camera")
    assert loop.played == []
    assert loop.ref.message.key == "camera.reconcile"
    assert loop.ref.message == ("The board does not match the journal: put red on c2 (seen on "
                                "c5) back; the camera takes up the round once it does")
    loop.ref.on_observation(dict(ROBOTS), "camera")
    assert not loop.ref.reconcile and loop.ref.message == ""


def test_the_solvers_answer_is_kept_with_its_steps_and_its_optimum_played(loop):
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    pos = loop.ref.start_round()
    assert pos is not None and loop.ref.verifier is not None
    loop.played.clear()
    route = [Move.parse("blue up"), Move.parse("blue right")]
    assert loop.ref.on_solved(1, pos, route, None).ok
    assert loop.played == [({"type": "optimum", "optimum": 2, "round": 1}, "solver")]
    assert loop.ref.optimal["moves"] == ["blue up", "blue right"]
    assert loop.ref.optimal["steps"][-1]["robots"]["blue"] == "h8"


def test_a_solver_that_failed_leaves_its_error_for_the_page(loop):
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    pos = loop.ref.start_round()
    out = loop.ref.on_solved(1, pos, None, "out of memory")
    assert not out.ok and loop.ref.optimal["error"] == "out of memory"


def test_the_game_waiting_for_a_chip_again_counts_a_new_wait(loop):
    waits = loop.ref.waits
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    assert not loop.ref.waiting
    loop.play({"type": "bid", "seat": 0, "value": 1}, "buttons")
    loop.t += 61
    loop.play({"type": "verdict", "success": False, "by": "table", "reason": "gave up"}, "page")
    assert loop.ref.waiting and loop.ref.waits == waits + 1
    assert loop.ref.chip_stale == "blue triangle"


def test_a_layout_the_camera_read_waits_for_the_user_stamped_with_the_wall_clock():
    loop = Loop()
    loop.ref.wall = lambda: 1234.5
    rows = [[None] * 6 for _ in range(6)]
    rulings = loop.ref.micro_rulings
    assert rulings.on_proposal((rows, None), "camera").ok
    assert rulings.proposal["at"] == 1234.5 and rulings.proposal["rows"] == rows
    assert rulings.proposal["problems"]  # unread spaces are named for the user
    assert loop.ref.message == "camera read a Micro Robots board: confirm it under Layouts"
    assert loop.played == []


def test_a_layout_proposal_of_the_wrong_shape_is_refused():
    loop = Loop()
    with pytest.raises(ValueError, match="layout proposal: the board is 6 rows of 6 spaces"):
        loop.ref.micro_rulings.on_proposal(([[None] * 6], None), "camera")


def _demonstrating(loop: Loop) -> None:
    """Blue triangle (h8) revealed, Anna bids 3, the hourglass runs out: she demonstrates,
    followed by the camera."""
    loop.play({"type": "reveal", "chip": "blue triangle"}, "page")
    loop.ref.start_round()  # what the table does on a revealed chip
    loop.play({"type": "bid", "seat": 0, "value": 3}, "buttons")
    loop.t += 600
    loop.play({"type": "tick"}, "clock")
    assert loop.game.phase == "demonstrating", loop.game.phase


def test_done_while_the_camera_cannot_see_a_robot_is_held_for_the_referee_not_failed(loop):
    _demonstrating(loop)
    loop.ref.on_observation(None, "camera")  # a hand over the board
    loop.ref.on_observation({"red": "c2", "green": "b6", "blue": "a8"}, "camera")  # no yellow
    held = loop.ref.holds_done()
    assert held is not None and held.key == "refuse.camera_unsure"
    assert "yellow is not seen (last seen on e5) — where is it?" in str(held)
    assert loop.game.phase == "demonstrating"  # no verdict: the referee judges by hand
    assert loop.ref.holds_done() is not None  # and a second done is held too
    out = loop.play({"type": "verdict", "success": True, "by": "referee"}, "page")
    assert out.ok and loop.game.phase != "demonstrating"


def test_done_with_every_robot_seen_is_the_games_to_judge(loop):
    _demonstrating(loop)
    loop.ref.on_observation(None, "camera")
    loop.ref.on_observation({"red": "c2", "green": "b6", "blue": "a8", "yellow": "e5"},
                            "camera")
    assert loop.ref.holds_done() is None


def test_a_robot_misread_for_one_look_and_seen_back_has_its_moves_taken_back_in_the_game(loop):
    # red, standing still, is read on c8 (one legal move away) in the look where blue goes up:
    # both moves are counted. Seen back on c2, where nothing could have stopped it, red's move
    # was a misreading: the verifier takes it back and the game's moves are corrected to
    # match, so blue's arrival is a success in two moves, not three.
    _demonstrating(loop)
    see = loop.ref.on_observation
    see(None, "camera")
    see({"red": "c8", "green": "b6", "blue": "a8", "yellow": "e5"}, "camera")
    assert sorted(loop.game.s.round.moves) == ["blue up", "red up"]
    see(None, "camera")
    see({"red": "c2", "green": "b6", "blue": "a8", "yellow": "e5"}, "camera")
    corrected = [c for c, _ in loop.played if c["type"] == "correct"]
    assert corrected and corrected[0]["moves"] == ["blue up"] and corrected[0]["by"] == "camera"
    assert loop.game.s.round.moves == ["blue up"]
    assert loop.game.s.cells(loop.game.s.robots)["red"] == "c2"
    see(None, "camera")
    see({"red": "c2", "green": "b6", "blue": "h8", "yellow": "e5"}, "camera")
    verdict = loop.game.s.verdict
    assert verdict is not None and verdict["success"] and verdict["moves"] == 2, verdict


def _asked(loop: Loop) -> tuple[str, str]:
    """During Anna's demonstration blue goes up while red, standing still, is seen on a cell
    no legal move reaches: the camera asks about red. Red and the cell it was seen on."""
    from conftest import unreachable

    _demonstrating(loop)
    pos = loop.ref.position()
    after = pos.push(Move.parse("blue up"))
    wrong = pos.board.name(unreachable(after, "red"))
    seen = {r: pos.board.name(c) for r, c in after.robots.items()}
    loop.ref.on_observation(None, "camera")
    loop.ref.on_observation({**seen, "red": wrong}, "camera")
    return "red", wrong


def test_the_cameras_question_is_answered_by_the_players_watching_not_the_demonstrator(loop):
    robot, wrong = _asked(loop)
    shown = loop.ref.question.shown()
    assert shown == {"robots": [{"robot": "red", "seen": wrong, "believed": "c2"}],
                     "seat": 0, "solo": False}
    out = loop.ref.question.answer({robot: False}, 0)  # Anna demonstrates: she may not
    assert not out.ok and out.reason.key == "answer.not_demonstrator"
    out = loop.ref.question.answer({"green": True}, 1)
    assert not out.ok and out.reason.key == "answer.not_asked"
    assert loop.ref.question.shown() == shown and loop.game.s.round.moves == ["blue up"]
    out = loop.ref.question.answer({robot: True}, 1)  # Ben says the camera is right
    assert out.ok and [e["type"] for e in out.result][:2] == ["answered", "illegal"]
    verdicts = [c for c, _ in loop.played if c["type"] == "verdict"]
    assert verdicts and verdicts[0]["by"] == "camera" and not verdicts[0]["success"]
    assert loop.ref.question.shown() is None
    out = loop.ref.question.answer({robot: True}, None)
    assert not out.ok and out.reason.key == "answer.none_open"


def test_the_host_says_the_camera_misread_and_the_count_goes_on(loop):
    robot, wrong = _asked(loop)
    out = loop.ref.question.answer({robot: False}, None)
    assert out.ok and [e["type"] for e in out.result] == ["answered"]
    assert loop.ref.question.shown() is None and loop.game.phase == "demonstrating"
    assert loop.game.s.cells(loop.game.s.robots)["red"] == "c2"
    assert not [c for c, _ in loop.played if c["type"] == "verdict"]
