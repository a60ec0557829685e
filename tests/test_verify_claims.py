"""A success is as much a verdict as a failure (companion.verify_claims): it is read only from
a look that shows the claimant on the target and not from one reading that a robot standing
still, misread, gives as well; and a failure past the bid never rests on an excursion that one
look alone saw."""

from __future__ import annotations

from companion.rules import Position
from companion.verify import Demonstration


def open_board(robots: dict[str, str], target: dict) -> Position:
    return Position.from_dict({"board": {"size": 8, "walls": []}, "robots": robots,
                               "target": target, "rules": {"ricochet": "off"}})


def feed(demo: Demonstration, looks: list, hands: bool = True) -> list[dict]:
    """Each look after a hand over the board (``hands``), until a verdict."""
    events: list[dict] = []
    for k, obs in enumerate(looks):
        if hands:
            events += demo.observe(None, at=2.0 * k)
        events += demo.observe(obs, at=2.0 * k + 1)
        if demo.verdict is not None:
            break
    return events


def verdicts(events: list[dict]) -> list[str]:
    return [e["verdict"] for e in events if "verdict" in e]


def moves(events: list[dict]) -> list[str]:
    return [e["move"] for e in events if e["type"] == "move"]


# ---------------------------------------------------------------- past the target


def test_a_robot_seen_past_the_target_is_no_success_when_another_reading_leaves_it_alone():
    # Blue a1 → h8: blue right (onto the target h1) and up, or blue up and right. Only the
    # first stops on the target, and no look saw blue there: the look is counted as two
    # moves with no verdict (it was read as a success).
    p = open_board({"blue": "a1", "red": "c5"}, {"cell": "h1", "robot": "blue"})
    demo = Demonstration(p, bid=4)
    events = feed(demo, [{"blue": "h8", "red": "c5"}])
    assert verdicts(events) == [] and len(moves(events)) == 2
    assert "h1" not in [e["to"] for e in events if e["type"] == "move"]


def test_a_robot_misread_on_a_cell_only_a_route_through_the_target_reaches_is_doubted():
    # Red really moves up; blue, standing still on a1, is misread on h3, which only blue
    # right (onto the target h1) and blue up (stopped by green on h4) reach. No look saw
    # blue on the target: its reading is doubted, red's move counted, and no verdict is
    # given (it was read as a success); blue seen back on a1 clears the doubt.
    p = open_board({"blue": "a1", "red": "c5", "green": "h4"},
                   {"cell": "h1", "robot": "blue"})
    demo = Demonstration(p, bid=4)
    events = feed(demo, [{"blue": "h3", "red": "c8", "green": "h4"}])
    assert verdicts(events) == []
    assert moves(events) == ["red up"]
    assert [e["robots"] for e in events if e["type"] == "doubt"] == [
        {"blue": {"seen": "h3", "believed": "a1"}}]
    events = feed(demo, [{"blue": "a1", "red": "c8", "green": "h4"}])
    assert [e["type"] for e in events if e["type"] == "doubt_cleared"] == ["doubt_cleared"]
    assert demo.doubts == {} and demo.verdict is None


def test_a_lone_robot_seen_only_past_the_target_is_asked_about():
    # Blue alone seen on h3: the only moves that explain it stop on the target and go on.
    # The camera never saw the arrival: the players judge (it was read as a success).
    p = open_board({"blue": "a1", "green": "h4"}, {"cell": "h1", "robot": "blue"})
    events = feed(Demonstration(p, bid=4), [{"blue": "h3", "green": "h4"}])
    assert verdicts(events) == ["unsure"]


# ---------------------------------------------------------------- an arrival beside a move


def test_a_robot_standing_still_misread_onto_the_target_beside_a_move_is_no_success():
    # Red really moves up; green, standing still on a1, is misread on its target h1 (green
    # right would reach it). The arrival is held; the next look, after a hand, shows green
    # back on a1: the camera cannot tell, the players judge (it was judged a success).
    p = open_board({"green": "a1", "red": "c5"}, {"cell": "h1", "robot": "green"})
    demo = Demonstration(p, bid=4)
    events = feed(demo, [{"green": "h1", "red": "c8"}])
    assert verdicts(events) == [] and moves(events) == []
    held = [e for e in events if e["type"] == "doubt"]
    assert set(held[0]["robots"]) == {"green", "red"}
    events = feed(demo, [{"green": "a1", "red": "c8"}])
    assert verdicts(events) == ["unsure"]


def test_a_misread_arrival_seen_back_with_no_hand_is_explained_afresh():
    # The same misreading, and the next frames (no hand) read green back on a1: it was
    # misread; red's move is what happened, and the demonstration goes on.
    p = open_board({"green": "a1", "red": "c5"}, {"cell": "h1", "robot": "green"})
    demo = Demonstration(p, bid=4)
    demo.observe({"green": "h1", "red": "c8"}, at=1.0)
    events = demo.observe({"green": "a1", "red": "c8"}, at=2.0)
    assert moves(events) == ["red up"] and demo.verdict is None
    events = feed(demo, [{"green": "h1", "red": "c8"}])  # then green really arrives
    assert verdicts(events) == ["success"] and events[-1]["count"] == 2


# ---------------------------------------------------------------- there and back past the bid


def test_a_failure_never_rests_on_an_excursion_one_look_alone_saw():
    # Yellow up then right onto h8: two moves, the bid. Blue, standing still on d1, is
    # misread on d8 in the first look (blue up would reach it), and read back on d1 with
    # the arrival (blue down). Counted, blue's there-and-back passes the bid; without it
    # the route is a success. The one look that saw blue away cannot be checked again: the
    # players judge (it was judged an over-bid, an honest player told they failed).
    p = open_board({"yellow": "a1", "blue": "d1"}, {"cell": "h8", "robot": "yellow"})
    demo = Demonstration(p, bid=2)
    events = feed(demo, [{"yellow": "a8", "blue": "d8"}, {"yellow": "h8", "blue": "d1"}])
    assert verdicts(events) == ["unsure"]
    verdict = [e for e in events if "verdict" in e][0]
    assert verdict["reason"].key == "verify.there_and_back" and "d8" in str(verdict["question"])


def test_an_excursion_seen_in_two_looks_still_passes_the_bid():
    # Blue seen on d8 in two looks (green moved between them): two readings agree, so its
    # moves there and back count, and the route passes the bid.
    p = open_board({"yellow": "a1", "blue": "d1", "green": "f3"},
                   {"cell": "h8", "robot": "yellow"})
    demo = Demonstration(p, bid=4)
    events = feed(demo, [{"yellow": "a8", "blue": "d8", "green": "f3"},
                         {"yellow": "a8", "blue": "d8", "green": "f1"},
                         {"yellow": "h8", "blue": "d1", "green": "f1"}])
    assert verdicts(events) == ["over_bid"]


def test_a_robot_that_went_there_and_back_alone_counts():
    # Blue up and down, each in a look of its own (the hand moved it alone): both count.
    p = open_board({"yellow": "a1", "blue": "d1"}, {"cell": "h8", "robot": "yellow"})
    demo = Demonstration(p, bid=3)
    events = feed(demo, [{"yellow": "a1", "blue": "d8"}, {"yellow": "a1", "blue": "d1"},
                         {"yellow": "a8", "blue": "d1"}, {"yellow": "h8", "blue": "d1"}])
    assert verdicts(events) == ["over_bid"]
