"""Recorded demonstrations with two consecutive moves under one hand (``bench.one_hand``), as
players often move a blocker and then the arriving robot with no clear frame between: the look
between the two moves is never seen, the two moves never read as one, and the verdicts that
the verifier gives on them are never wrong on clean readings."""

from __future__ import annotations

import random

import pytest

from companion.benchmarks import verify as bench


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
