"""A demonstration taken up from the journal (after a restart or an undo) counts nothing
twice: for any route so far, the verifier resumed with it and shown the board as that route
left it reports nothing new, and the next slide is one move more (property test)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.rules import Position, validate_route
from companion.verify import Demonstration, RoundVerifier

EXAMPLE = Path(__file__).resolve().parents[1] / "companion" / "examples" / "hardest-25.json"
START = Position.load(EXAMPLE)


def walk(choices: list[int]) -> tuple[list, Position]:
    """A route of slides that move (picked by ``choices``) and the position it leaves."""
    pos, route = START, []
    for k in choices:
        moves = [(m, s) for m, s in pos.legal_moves() if s.end != s.start]
        move, _ = moves[k % len(moves)]
        pos = pos.push(move)
        route.append(move)
    return route, pos


def names(pos: Position) -> dict[str, str]:
    return {r: pos.board.name(c) for r, c in pos.robots.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=0, max_size=8), st.integers(0, 1000))
def test_a_resumed_demonstration_counts_nothing_twice(choices, nxt):
    route, pos = walk(choices)
    demo = Demonstration(START, bid=40)
    demo.resume([m.text() for m in route])
    assert demo.count == len(route) and demo.robots == pos.robots
    assert demo.observe(names(pos), 1.0) == []  # the board as the journal has it: no news
    moving = [m for m, s in pos.legal_moves() if s.end != s.start]
    after = pos.push(moving[nxt % len(moving)])  # the player slides once more
    events = demo.observe(names(after), 2.0)
    moves = [e for e in events if e["type"] == "move"]
    if validate_route(START, [*route, moving[nxt % len(moving)]], 40).legal:
        # the rules allow it: exactly that one move, counted after the journal's
        assert [m["move"] for m in moves] == [moving[nxt % len(moving)].text()], events
        assert moves[0]["count"] == len(route) + 1
    else:
        assert not moves, events


def test_a_round_verifier_resumes_the_bidders_demonstration():
    route, pos = walk([3, 1, 4])
    rv = RoundVerifier(START, solve=None)
    rv.resume(9, "Ann", [m.text() for m in route], 0.0)
    assert rv.current is not None and rv.current.player == "Ann"
    assert rv.current.count == 3 and rv.observe(names(pos), 1.0) == []
