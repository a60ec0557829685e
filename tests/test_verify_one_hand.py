"""Recorded demonstrations with two consecutive moves under one hand (``bench.one_hand``), as
players often move a blocker and then the arriving robot with no clear frame between: the look
between the two moves is never seen, the two moves never read as one, and the verdicts that
the verifier gives on them are never wrong on clean readings."""

from __future__ import annotations

import random

import pytest

from companion.benchmarks import verify as bench
from companion.verify_replay import stable_looks


def drawn(kind: str, seed: int) -> bench.Recorded:
    rnd = random.Random(seed)
    rec = bench.recorded_demo(rnd, kind)
    while len(rec.states) < 2:
        rec = bench.recorded_demo(rnd, kind)
    return bench.one_hand(rec, random.Random(seed + 1))


def test_the_look_between_the_two_moves_is_never_seen_and_one_hand_spans_them():
    merged = [r for r in (drawn("honest", s) for s in range(40)) if r.together]
    assert len(merged) >= 20
    for rec in merged:
        (k,) = rec.together
        frames = bench.frames_of(rec)
        assert all(s != k for s, _hand in frames)
        hands = sum(1 for s, hand in frames if hand)
        assert hands == len(rec.states) - 1  # one hand fewer than moves
        # the hand over the next look is the one that came after look k - 1's still frames
        i = next(i for i, (s, hand) in enumerate(frames) if hand and s == k + 1)
        assert frames[i - 1] == (k - 1, False)


def test_two_moves_never_read_as_fewer_and_an_illegal_look_stays_one_no_moves_explain():
    for kind in bench.KINDS:
        for seed in range(30):
            rec = drawn(kind, seed)
            if not rec.together:
                continue
            (k,) = rec.together
            before = dict(rec.position.robots) if k == 1 else rec.states[k - 2]
            last = k == len(rec.states) - 1
            most = bench.DEFAULT_MAX_GAP if kind == "illegal" and last else 2
            fewest = bench._fewest(rec.position.with_robots(before), rec.states[k], most)
            assert fewest == (None if kind == "illegal" and last else 2)


def test_misreadings_under_one_hand_touch_only_a_robot_that_no_hand_near_it_moved():
    for seed in range(20):
        rec = drawn("honest", seed)
        if not rec.together:
            continue
        clean = bench.true_readings(rec)
        frames = bench.frames_of(rec)
        for how in ("flicker", "spell", "unseen"):
            bad = bench.inject(rec, clean, random.Random(seed), how)
            changed = [i for i, (a, b) in enumerate(zip(clean, bad, strict=True)) if a != b]
            assert changed
            (k,) = {frames[i][0] for i in changed}
            assert k not in rec.together
            robots = {r for i in changed for r in clean[i].robots
                      if clean[i].robots.get(r) != bad[i].robots.get(r)}
            (robot,) = robots
            # not a robot moved in the hands before and after look k (the merged pair too)
            (j,) = rec.together
            near = set(rec.movers[k - 1:k + 1])
            if k == j + 1:
                near.add(rec.movers[j - 1])
            if k == j - 1:
                near.add(rec.movers[j])
            assert robot not in near


@pytest.mark.parametrize("kind", bench.KINDS)
def test_one_hand_never_turns_a_clean_verdict_wrong(kind):
    for seed in range(25):
        rec = drawn(kind, seed)
        verdict = bench.judge(rec, bench.true_readings(rec))
        assert verdict in (rec.expected, "unsure"), (seed, verdict)


def test_the_together_row_has_every_demonstration_under_one_hand_and_bad_shares_refused():
    rows = bench.verdict_rows("truth", 3, 5, together=1.0)
    assert set(rows) == set(bench.KINDS)
    assert all(r["demos"] == 3 for r in rows.values())
    with pytest.raises(ValueError, match="together"):
        bench.verdict_rows("truth", 1, 5, together=1.5)


def test_the_board_back_unchanged_after_a_hand_is_a_look_again_as_at_the_table():
    rec = drawn("honest", 0)
    still = bench.true_readings(rec)[0]
    frames = [still] * 4 + [bench.Reading({}, True)] * 2 + [still] * 4
    looks = list(stable_looks((float(t), r) for t, r in enumerate(frames)))
    assert [look for _t, look in looks] == [still.robots, None, still.robots]
    assert looks[-1][0] == 6.0  # at once: the state was accepted before the hand


def test_a_held_arrival_under_one_hand_succeeds_once_a_hand_passes_and_it_is_seen_again():
    held = 0
    for seed in range(60):
        rec = drawn("honest", seed)
        readings = bench.true_readings(rec)
        if bench.judge(rec, readings) != "unsure":
            continue
        held += 1
        assert bench.judge(rec, readings, answer=True) == "success", seed
    assert held >= 5  # a blocker, then the arriving robot, under one hand: held at the end


@pytest.mark.parametrize("kind", ("over_bid", "illegal"))
def test_a_hand_passed_in_answer_never_makes_a_failure_a_success(kind):
    for seed in range(30):
        rec = drawn(kind, seed)
        for how in bench.MISREADS:
            readings = bench.inject(rec, bench.true_readings(rec), random.Random(seed), how)
            verdict = bench.judge(rec, readings, answer=True)
            assert verdict in (rec.expected, "unsure"), (seed, how, verdict)


def _seed_543_honest_26() -> tuple[bench.Recorded, list]:
    # bench verify's seed 543: an honest route (green l15→l16, then l16→p16, bid 2) with
    # yellow, standing still on a10, misread on a6 for the whole still spell after the
    # first move; seen back on a10 at the arrival
    rnd = random.Random(543)
    for kind in bench.KINDS:
        for d in range(40):
            rec = bench.recorded_demo(rnd, kind)
            readings = bench.inject(rec, bench.true_readings(rec), rnd,
                                    bench.MISREADS[d % len(bench.MISREADS)])
            if kind == "honest" and d == 26:
                return rec, readings
    raise AssertionError("unreachable")


def test_a_robot_seen_back_at_the_arrival_and_again_after_a_hand_is_no_success():
    rec, readings = _seed_543_honest_26()
    board = rec.position.board
    assert [board.name(s["yellow"]) for s in rec.states] == ["a10", "a10"]
    # the same readings come from an over-bid: yellow really went down to a6 beside green's
    # first move and back up beside its arrival (4 moves for a bid of 2). A hand passed
    # over the unchanged board sees yellow on a10 again, which tells nothing of a6
    twin = bench.Recorded("over_bid", rec.position, rec.bid,
                          [{**rec.states[0], "yellow": board.cell("a6")}, rec.states[1]],
                          ["green", "yellow", "green", "yellow"])
    assert bench.true_readings(twin) == [r for r in readings]
    assert bench.judge(rec, readings) == "unsure"
    assert bench.judge(rec, readings, answer=True) == "unsure"


def test_an_excursion_seen_in_one_look_and_undone_under_the_next_hand_is_no_over_bid():
    """Seed 714 draws an honest route whose robot standing still is misread two slides away for
    a whole still spell, beside another robot's real move; the next look, two moves under one
    hand, shows it back where it stood. The bid was passed by the first move that look's
    explanation walks back with, before the robot was back: the excursion must be judged on
    the look's end (``unsure``: the players are asked), never as an over-bid."""
    rows = bench.verdict_rows("truth", 40, 714, together=1.0)
    assert set(rows["honest"]["verdicts"]) <= {"success", "unsure"}
    assert rows["honest"]["verdicts"].get("success", 0) >= 30
    assert set(rows["over_bid"]["verdicts"]) <= {"over_bid", "unsure"}
    assert set(rows["illegal"]["verdicts"]) <= {"illegal", "unsure"}


def drawn_from_row(seed: int, number: int) -> tuple[bench.Recorded, list]:
    """The ``number``-th honest demonstration of the one-hand row of ``seed``, with its
    readings, drawn as :func:`bench.verdict_rows` draws it."""
    rnd, hands = random.Random(seed), random.Random(seed * 7919 + 1)
    for d in range(number + 1):
        rec = bench.recorded_demo(rnd, "honest")
        while len(rec.states) < 2:
            rec = bench.recorded_demo(rnd, "honest")
        if hands.random() < 1.0:
            rec = bench.one_hand(rec, hands)
        how = bench.MISREADS[d % len(bench.MISREADS)]
        readings = bench.inject(rec, bench.true_readings(rec), rnd, how)
    return rec, readings


def test_an_excursion_beside_a_move_taken_back_is_no_over_bid():
    """Seed 845, honest demonstration 26: yellow up and red right under one hand, red left,
    yellow down. In yellow's way back green, standing still, is misread on i16 (the cell
    yellow left) for a whole still spell. Yellow's move, read beside red's, is taken back as
    a misreading when yellow is seen back, so green's reading was the only move left in that
    look: it was counted as three moves, green seen back as a fourth, and the honest route
    judged an over-bid. A robot seen away for one look in which another robot's moves were
    taken back (that robot was seen moving back then) is an excursion: the bid passed only with
    it is ``unsure``."""
    rec, readings = drawn_from_row(845, 26)
    board = rec.position.board
    assert rec.bid == 5 and rec.movers == ["yellow", "red", "red", "yellow", "red"]
    green = {r.robots["green"] for r in readings if isinstance(r, bench.Reading)
             and not r.occluded}
    assert green == {"j16", "i16"} and board.name(rec.position.robots["green"]) == "j16"
    assert bench.judge(rec, readings) == "unsure"

