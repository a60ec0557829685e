"""A board read under a wrong north makes every robot jump at once: a misreading, never an
``illegal``. Looks where several robots changed together and no legal move explains them are
asked about on the page; the verdict is ``unsure`` when the reading stays."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_verify import RED_SQUARE_ROUTE, feed, looks, of_type, red_square, verdicts

from companion.benchmarks import verify as bench
from companion.board import Board
from companion.verify import Demonstration
from companion.verify_replay import replay


def turned(board: Board, robots: dict, quarters: int) -> dict:
    """Where the robots are seen when the board is read turned by ``quarters`` quarter turns
    (clockwise): what a reader that took the wrong side for north reports."""
    n = board.width
    out = {}
    for r, c in robots.items():
        cell = board.cell(c) if isinstance(c, str) else c
        y, x = divmod(cell, n)
        for _ in range(quarters % 4):
            x, y = y, n - 1 - x
        out[r] = board.name(y * n + x) if isinstance(c, str) else y * n + x
    return out


def with_hands(observations: list) -> list:
    out = []
    for o in observations:
        out += [None, o]
    return out


def test_a_quarter_turn_is_a_turn_and_four_are_none():
    p = red_square()
    robots = dict(looks(p, "red right")[0])
    once = turned(p.board, robots, 1)
    assert all(once[r] != robots[r] for r in robots)
    assert turned(p.board, once, 3) == robots


def test_every_robot_jumping_by_a_quarter_turn_after_a_move_is_asked_about_not_illegal():
    # The recorded case: the first move read right, then the reader took the wrong side for
    # north and kept to it over the frames, so all four robots looked moved at once; an
    # over-bid demonstration was judged "illegal".
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    board = p.board
    for quarters in (1, 2, 3):
        wrong = [turned(board, s, quarters) for s in seen[1:]]
        obs = with_hands([seen[0], *wrong])
        result = replay(p, 3, [(float(k), o) for k, o in enumerate(obs)])  # over bid
        assert result.verdict == "unsure", (quarters, result.verdict)
        demo = Demonstration(p, bid=3)
        events = feed(demo, obs)
        assert "illegal" not in [e["type"] for e in events]
        (doubt,) = of_type(events, "doubt")[:1]
        assert set(doubt["robots"]) == set(p.robots)


def test_a_turned_look_that_goes_back_to_the_truth_lets_the_count_go_on():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=4)
    events = feed(demo, with_hands([seen[0], turned(p.board, seen[0], 2), *seen[1:]]))
    assert of_type(events, "doubt") and of_type(events, "doubt_cleared")
    assert [e["move"] for e in of_type(events, "move")] == RED_SQUARE_ROUTE.split(", ")
    assert verdicts(events) == ["success"]


def test_two_robots_standing_still_misread_while_one_moves_are_asked_about():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    others = [r for r in p.robots if r != "red"]
    free = [c for c in ("k10", "e13", "g4", "n14") if c not in seen[0].values()]
    bad = {**seen[0], others[0]: free[0], others[1]: free[1]}
    events = feed(Demonstration(p, bid=4), with_hands([bad, *seen[1:]]))
    assert "illegal" not in [e["type"] for e in events]
    assert verdicts(events) == ["success"]


def displaced(rec: bench.Recorded, states: list[dict], k: int, rnd: random.Random) -> dict:
    """The robots after look ``k`` with two or more that do not move around it read on wrong
    cells."""
    board = rec.position.board
    moving = {rec.movers[k - 1] if k else None, rec.movers[k] if k < len(rec.movers) else None}
    still = [r for r in states[k] if r not in moving]
    taken = set(states[k].values())
    free = [c for c in board if c not in board.blocked and c not in taken]
    bad = dict(states[k])
    for r in rnd.sample(still, rnd.randint(2, len(still))):
        bad[r] = free.pop(rnd.randrange(len(free)))
    return bad


@pytest.mark.slow  # 25 recorded demonstrations replayed, seconds each; the cases above stay fast
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), quarters=st.integers(1, 3), kind=st.sampled_from(
    ["honest", "over_bid"]), where=st.floats(0, 1), spell=st.integers(1, 3),
    displace=st.booleans())
def test_a_turned_or_several_robot_misreading_never_makes_a_demonstration_illegal(
        seed, quarters, kind, where, spell, displace):
    rnd = random.Random(seed)
    rec = bench.recorded_demo(rnd, kind)
    board = rec.position.board
    states = [dict(rec.position.robots), *rec.states]
    k = min(len(states) - 1, int(where * len(states)))
    if displace:
        bad = displaced(rec, states, k, rnd)
    else:
        bad = turned(board, states[k], quarters)
    looks_ = [*states[:k + 1], *[bad] * spell, *states[k + 1:]]
    obs = with_hands(looks_)
    result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
    assert result.verdict != "illegal"
    # the same with the wrong reading kept to the end
    obs = with_hands([*states[:k + 1], *[bad] * spell])
    result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
    assert result.verdict != "illegal"



@pytest.mark.parametrize("seed, quarters, kind, where", [
    (28, 3, "honest", 0.0), (45, 2, "honest", 0.25), (53, 2, "honest", 0.0),
    (58, 3, "honest", 0.0), (58, 3, "over_bid", 0.0)])
def test_a_turned_look_where_one_robot_could_have_moved_there_is_not_taken_for_its_move(
        seed, quarters, kind, where):
    # Found by the property test above: the turned look moved every robot, and one of them
    # to a cell it could reach by itself. It was taken for that robot's move (the others
    # doubted), so when the truth came back its real move was "illegal". It is doubted with
    # the others now, and judged afresh once they are seen back: the verdict is the truth's.
    rec = bench.recorded_demo(random.Random(seed), kind)
    states = [dict(rec.position.robots), *rec.states]
    k = min(len(states) - 1, int(where * len(states)))
    bad = turned(rec.position.board, states[k], quarters)
    for spell in (1, 3):
        obs = with_hands([*states[:k + 1], *[bad] * spell, *states[k + 1:]])
        result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
        assert result.verdict == ("success" if kind == "honest" else "over_bid"), spell
        obs = with_hands([*states[:k + 1], *[bad] * spell])
        result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
        assert result.verdict == "unsure", spell


@pytest.mark.parametrize("seed, k, spell, back", [
    (124484, 1, 2, "success"), (124484, 1, 3, "success"), (124484, 2, 2, "success"),
    (124484, 2, 3, "success"), (305016, 2, 3, "unsure")])
def test_several_robots_misread_over_looks_never_make_an_honest_route_an_over_bid(
        seed, k, spell, back):
    """Found by the property test above (seed 124484): red and green, standing still, read on
    wrong cells for two looks a hand apart beside blue's and yellow's moves. Red was doubted
    (no legal move explains it); green's reading, left uncounted beside red's doubt in the
    first look (it would have passed the bid), was counted in the second as three moves, and
    the honest route judged an over-bid. Changes seen again beside a robot still doubted for
    the same look may be one misreading lasting: no failure rests on them while the doubt
    stands, and the truth seen back gives the success (kept to the end: ``unsure``).
    Seed 305016: red's three moves were counted beside yellow's doubted reading and red,
    seen back, was counted as a fourth past the bid; red's excursion came with a reading
    taken for a misread, so the bid passed only with it is ``unsure``."""
    rnd = random.Random(seed)
    rec = bench.recorded_demo(rnd, "honest")
    states = [dict(rec.position.robots), *rec.states]
    bad = displaced(rec, states, k, rnd)
    assert sum(bad[r] != c for r, c in states[k].items()) == 2
    for tail, verdict in ((states[k + 1:], back), ([], "unsure")):
        obs = with_hands([*states[:k + 1], *[bad] * spell, *tail])
        result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
        assert result.verdict == verdict


def test_two_robots_misread_at_the_start_over_two_looks_never_make_an_honest_route_an_over_bid():
    """Found by a stress run of the property test above (seed 561854, displaced at the start
    for two looks a hand apart): green and blue, standing still, read on p5 and j10; blue
    was doubted and green's change counted as two moves. Seen back on a11 beside red's move,
    green was doubted for passing the bid, then confirmed after a hand, and the honest route
    judged an over-bid on green's two phantom moves. Moves of a robot away beside another
    taken for misread, seen back now, pass the bid only with that excursion: ``unsure``."""
    rnd = random.Random(561854)
    rec = bench.recorded_demo(rnd, "honest")
    states = [dict(rec.position.robots), *rec.states]
    bad = displaced(rec, states, 0, rnd)
    board = rec.position.board
    assert {r: board.name(c) for r, c in bad.items() if c != states[0][r]} == {
        "green": "p5", "blue": "j10"}
    obs = with_hands([states[0], bad, bad, *states[1:]])
    result = replay(rec.position, rec.bid, [(float(t), o) for t, o in enumerate(obs)])
    assert result.verdict == "unsure" and "green was seen on p5" in result.reason
