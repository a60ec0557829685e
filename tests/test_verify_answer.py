"""The players answer the page's question ("green seen on k13 — is that right?"): a reading
they say is right is judged as read, so an illegal move made under the same hand as another
robot's legal one (which the camera alone cannot tell from a robot standing still misread
beside that move) is judged ``illegal`` once they confirm it; a reading they say is wrong is
the camera's mistake, believed where the robot stood. Players who answer truly never turn an
honest demonstration into a failure nor a failure into a success."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_verify import of_type
from test_verify_turned import displaced, turned, with_hands

from companion.benchmarks import verify as bench
from companion.board import Board
from companion.rules import Goal, Position
from companion.verify import Demonstration, RoundVerifier
from companion.verify_replay import replay, stable_looks

# Drawn by the one-hand row of `companion bench verify` (seed 700, the 25th illegal
# demonstration): under one hand red goes up from h10 to h15 (legal) and green is put down on
# k13, going down from k16, where nothing stops it (it slides on to k12).
START = {"red": "h10", "green": "k16", "blue": "h16", "yellow": "p16"}
BOTH = {**START, "red": "h15", "green": "k13"}
RED_UP = {**START, "red": "h15"}


def position() -> Position:
    board = Board.from_tiles(["2D", "3C", "4A", "1D"])
    robots = {r: board.cell(c) for r, c in START.items()}
    return Position(board, robots, Goal(board.cell("o12"), "green"))


def watched(looks: list, bid: int = 5) -> tuple[Demonstration, list[dict]]:
    demo = Demonstration(position(), bid)
    events: list[dict] = []
    for k, look in enumerate(looks):
        events += demo.observe(look, at=float(k))
    return demo, events


def test_the_camera_alone_cannot_tell_a_move_made_under_one_hand_from_a_misreading():
    demo, events = watched([START, None, BOTH, None, BOTH])
    (doubt,) = of_type(events, "doubt")
    assert doubt["question"] == "green seen on k13 — is that right?"
    assert [e["move"] for e in of_type(events, "move")] == ["red up"]
    assert demo.asked == {"green": position().board.cell("k13")}
    demo.done(at=9.0)
    assert demo.verdict["verdict"] == "unsure"


def test_a_reading_the_players_say_is_right_is_judged_and_the_move_is_illegal():
    demo, _ = watched([START, None, BOTH])
    events = demo.answer({"green": True}, at=5.0)
    assert [e["type"] for e in events][:2] == ["answered", "illegal"]
    assert events[0]["robots"] == {"green": True}
    illegal = events[1]
    assert illegal["reason"].startswith("green stopped on k13: nothing stops it there")
    assert illegal["route"] == "red up" and demo.verdict["verdict"] == "illegal"


def test_a_reading_the_players_say_is_wrong_is_believed_where_the_robot_stood():
    demo, _ = watched([START, None, BOTH])
    assert not of_type(demo.answer({"green": False}, at=5.0), "illegal")
    assert demo.doubts == {} and demo.asked == {}
    # the camera keeps seeing green on k13: its known mistake, no news
    assert demo.observe(None, at=6.0) and demo.observe(BOTH, at=7.0) == []
    assert demo.robots["green"] == position().board.cell("k16")
    demo.done(at=8.0)
    assert demo.verdict["verdict"] == "incomplete"  # red up: the target not reached


def test_the_round_passes_the_answer_to_the_running_demonstration():
    rv = RoundVerifier(position(), solve=None)
    rv.begin(5, "ann")
    for k, look in enumerate([START, None, BOTH]):
        rv.observe(look, float(k))
    events = rv.answer({"green": True}, at=5.0)
    assert events[0]["type"] == "answered" and events[0]["player"] == "ann"
    assert rv.current is not None and rv.current.verdict["verdict"] == "illegal"
    assert not rv.ready  # the board must be restored before the next bidder


def test_only_the_readings_asked_about_may_be_answered_and_a_verdict_stays():
    demo, _ = watched([START, None, RED_UP])
    with pytest.raises(ValueError, match="answer: robots green, but the page asks about none"):
        demo.answer({"green": True}, at=5.0)
    demo, _ = watched([START, None, BOTH])
    with pytest.raises(ValueError, match="asks about green"):
        demo.answer({"blue": True}, at=5.0)
    with pytest.raises(ValueError, match="answer: robots none"):
        demo.answer({}, at=5.0)
    demo.answer({"green": True}, at=5.0)
    assert demo.answer({"green": True}, at=6.0) == []  # judged already


def test_a_word_on_a_reading_judges_only_the_look_it_was_doubted_in():
    # green doubted beside red's move; then yellow moves: the moves since may be what green's
    # reading needed, so the players' word gives no verdict, and the page still asks
    yellow_left = {**BOTH, "yellow": "l16"}
    demo, events = watched([START, None, BOTH, None, yellow_left])
    assert [e["move"] for e in of_type(events, "move")] == ["red up", "yellow left"]
    events = demo.answer({"green": True}, at=9.0)
    assert events[-1]["verdict"] == "unsure" and demo.verdict["question"]


def test_a_no_leaves_unjudged_a_change_left_uncounted_beside_the_doubt():
    # Found by the stress run of the players' answers (seed 105045 of the several-robot
    # misreadings): after yellow's move (bid 1, the over-bid's second move not made yet)
    # green and blue, standing still, are read on c2 and k1 over a hand. Green is doubted;
    # blue's change, legal but past the bid beside a doubt, is left uncounted. The players
    # say green is where it stood: blue's reading was never asked about, so it may be the
    # same misreading lasting, and no over-bid rests on it
    rec = bench.recorded_demo(random.Random(105045), "over_bid")
    board = rec.position.board
    first = {r: board.name(c) for r, c in rec.states[0].items()}
    assert rec.bid == 1 and first == {"red": "f7", "green": "d9", "blue": "i4", "yellow": "m16"}
    start = {r: board.name(c) for r, c in rec.position.robots.items()}
    demo = Demonstration(rec.position, rec.bid)
    misread = {**first, "green": "c2", "blue": "k1"}
    for at, look in enumerate([start, None, first, None, misread]):
        demo.observe(look, float(at))
    assert demo.asked == {"green": board.cell("c2")} and demo.count == 1
    events = demo.answer({"green": False}, at=9.0)
    assert events[-1]["verdict"] == "unsure" and demo.count == 1
    assert "blue seen on k1" in events[-1]["question"]


# ---------------------------------------------------------------- held arrivals


def _held(kind: str) -> tuple[bench.Recorded, list]:
    """A recording whose arrival, beside another robot's move under one hand, is held at the
    end for a second look (the clean readings)."""
    for seed in range(100):
        rnd = random.Random(seed)
        rec = bench.recorded_demo(rnd, kind)
        while len(rec.states) < 2:
            rec = bench.recorded_demo(rnd, kind)
        rec = bench.one_hand(rec, random.Random(seed + 1))
        readings = bench.true_readings(rec)
        if bench.judge(rec, readings) == "unsure":
            return rec, readings
    raise AssertionError("no held arrival drawn")


@pytest.mark.parametrize("kind", ["honest", "over_bid"])
def test_a_held_arrival_the_players_confirm_counts_every_move(kind):
    rec, readings = _held(kind)
    assert bench.judge(rec, readings, reply=True) == rec.expected


def test_a_held_arrival_with_a_robot_left_unanswered_is_unsure():
    rec, readings = _held("honest")
    demo = Demonstration(rec.position, rec.bid)
    for at, look in stable_looks((float(t), r) for t, r in enumerate(readings)):
        demo.observe(look, at)
    asked = demo.asked
    assert len(asked) >= 2 and demo.verdict is None
    first = next(iter(asked))
    events = demo.answer({first: True}, at=99.0)
    assert events[-1]["verdict"] == "unsure" and demo.asked == {}


# ---------------------------------------------------------------- the rule, for any demonstration


def test_players_who_answer_truly_settle_the_illegal_demonstrations_the_camera_cannot():
    plain = bench.verdict_rows("truth", 12, 3, together=1.0)
    replied = bench.verdict_rows("truth", 12, 3, together=1.0, reply=True)
    assert plain["illegal"]["unsure"] >= 2  # the same demonstrations, the camera alone
    assert replied["illegal"]["right"] > plain["illegal"]["right"]
    for kind, row in replied.items():
        assert row["false_illegal"] == 0
        assert row["right"] >= plain[kind]["right"]
        assert kind == "honest" or "success" not in row["verdicts"]
        assert kind != "honest" or set(row["verdicts"]) <= {"success", "unsure"}


@pytest.mark.slow  # 30 recorded demonstrations replayed, seconds each
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), quarters=st.integers(1, 3), kind=st.sampled_from(
    bench.KINDS), where=st.floats(0, 1), spell=st.integers(1, 3), displace=st.booleans())
def test_true_answers_about_a_turned_or_several_robot_misreading_never_fail_the_honest(
        seed, quarters, kind, where, spell, displace):
    rnd = random.Random(seed)
    rec = bench.recorded_demo(rnd, kind)
    states = [dict(rec.position.robots), *rec.states]
    k = min(len(states) - 1, int(where * len(states)))
    if kind == "illegal":
        k = min(k, len(states) - 2)  # misread before the illegal look
    bad = displaced(rec, states, k, rnd) if displace else turned(
        rec.position.board, states[k], quarters)
    for tail, end in ((states[k + 1:], states[-1]), ([], states[k])):
        obs = with_hands([*states[:k + 1], *[bad] * spell, *tail])
        truly = bench.truthful(replace(rec, states=[*rec.states[:k], end]))
        verdict = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)],
                         answers=truly).verdict
        assert kind == "illegal" or verdict != "illegal"
        assert kind == "honest" or verdict != "success"
        if tail and kind == "honest":
            assert verdict in ("success", "unsure")
