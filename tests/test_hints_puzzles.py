"""Graded hints never contradict the solution they come from, and practice puzzles come out at
exactly the length asked, re-checked by the solver, the same for the same seed or date."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.board import Board
from companion.hints import LEVELS, hints
from companion.puzzles import MAX_MOVES, PuzzleError, daily, deal
from companion.rules import Position, Rules, validate_route
from companion.solver import SolverError, solve


@st.composite
def real_positions(draw) -> Position:
    order = draw(st.permutations([1, 2, 3, 4]))
    tiles = [f"{n}{draw(st.sampled_from('ABCD'))}" for n in order]
    board = Board.from_tiles(tiles)
    names = ["red", "green", "blue", "yellow"]
    diag = {d.cell for d in board.diagonals}
    free = [c for c in board.cells() if c not in board.blocked and c not in diag]
    spots = draw(st.lists(st.sampled_from(free), min_size=4, max_size=4, unique=True))
    t = draw(st.sampled_from([t for t in board.targets if not t.is_vortex]))
    return Position.from_dict({
        "board": {"tiles": tiles},
        "robots": {n: board.name(c) for n, c in zip(names, spots, strict=True)},
        "target": {"color": t.color, "shape": t.shape},
        "rules": {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
                  "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"]))},
    })


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pos=real_positions())
def test_hints_never_contradict_the_solution(pos):
    sol = solve(pos, max_cost=8)
    if not sol.solved:
        with pytest.raises(SolverError):
            hints(pos, 4, sol)
        return
    all_four = hints(pos, 4, sol)
    assert [h.level for h in all_four] == [1, 2, 3, 4]
    for k in LEVELS:  # each level only adds to the ones before it
        assert hints(pos, k, sol) == all_four[:k]
    length, robots, first, route = all_four
    assert length.length == len(sol.moves) and length.cost == sol.cost
    assert f"{len(sol.moves)} move" in length.text
    assert set(robots.robots) == {m.robot for m in route.route}
    assert list(robots.robots) == list(dict.fromkeys(m.robot for m in route.route))
    assert first.first == route.route[0] and first.first.text() in first.text
    verdict = validate_route(pos, route.route)  # the route hinted at is legal and optimal
    assert verdict.legal and verdict.reached and verdict.cost == length.cost
    assert len(route.route) == length.length


def test_hint_command_reveals_level_by_level(cli, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "board": {"tiles": ["4B", "3B", "2B", "1A"]},
        "robots": {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15"},
        "target": {"color": "green", "shape": "circle"},
    }))
    code, out, _ = cli("hint", str(path))
    assert code == 0 and out.strip() == "1. It can be done in 5 moves."
    code, out, _ = cli("hint", str(path), "--level", "4", "--json")
    got = json.loads(out)["hints"]
    assert [h["kind"] for h in got] == ["length", "robots", "first move", "route"]
    assert got[3]["route"][0] == got[2]["first"] and len(got[3]["route"]) == 5
    code, _, err = cli("hint", str(path), "--level", "5")
    assert code == 2 and "--level" in err


def test_hint_without_a_route_says_why_with_status_1(cli, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "board": {"size": 3, "walls": [["b2", "up"], ["b2", "down"], ["b2", "left"],
                                       ["b2", "right"]]},
        "robots": {"red": "a1"}, "target": {"cell": "b2", "robot": "red"},
    }))
    code, out, _ = cli("hint", str(path))
    assert code == 1 and "red" in out


@pytest.mark.parametrize("moves", [1, 4, 7])
@pytest.mark.slow
def test_a_puzzle_needs_exactly_the_moves_asked_for(moves):
    puzzle = deal(moves, seed=f"t{moves}")
    again = Position.from_json(puzzle.position.to_json())
    assert solve(again).cost == moves == len(puzzle.solution.moves)
    if moves > 1:  # no route of one move fewer
        assert solve(again, max_cost=moves - 1).status == "no_solution"


def test_the_same_seed_deals_the_same_puzzle_and_the_day_is_a_seed():
    a, b = deal(5, seed="same"), deal(5, seed="same")
    assert a.position == b.position
    assert deal(5, seed="other").position != a.position
    day = dt.date(2026, 11, 25)
    assert daily(day).position == daily(day).position
    assert daily(day).position != daily(day + dt.timedelta(days=1)).position


def test_puzzles_follow_the_edition_tiles_and_options():
    sides = set()
    for seed in range(6):
        p = deal(3, Rules.from_spec("classic-1999"), seed=seed)
        sides |= {t[1] for t in p.position.board.tiles}
        assert p.position.rules.preset == "classic-1999"
    assert sides <= {"A", "B"}
    diag = [deal(3, seed=s).position.board.diagonals for s in range(8)]
    assert any(diag)  # the default edition ships D sides, with their diagonals
    p = deal(4, Rules.from_spec("riogrande-2003"), seed=1, fifth=True)
    assert "silver" in p.position.robots and solve(p.position).cost == 4


def test_bad_puzzle_requests_are_refused():
    with pytest.raises(PuzzleError, match="moves"):
        deal(MAX_MOVES + 1)
    with pytest.raises(PuzzleError, match="no puzzle of 14 moves"):
        deal(14, seed="quick", seconds=0.01)


def test_puzzle_command_writes_a_position_that_solves_in_n(cli, tmp_path):
    out = tmp_path / "puzzle.json"
    code, text, _ = cli("puzzle", "--moves", "3", "--seed", "9", "--out", str(out))
    assert code == 0 and "A puzzle of 3 moves (seed 9)" in text
    assert solve(Position.load(str(out))).cost == 3
    code, text, _ = cli("puzzle", "--daily", "2026-01-01", "--json")
    got = json.loads(text)
    assert got["seed"] == "daily-2026-01-01" and got["moves"] == 6
    code, _, err = cli("puzzle", "--moves", "0")
    assert code == 2 and "--moves" in err
    code, _, err = cli("puzzle", "--daily", "yesterday")
    assert code == 2 and "--daily" in err
    code, _, err = cli("puzzle", "--rules", "nonsense")
    assert code == 2 and "rules" in err


def test_the_game_keeps_the_highest_hint_of_a_solo_round_in_its_record():
    from companion.game import Game, GameError

    g = Game()
    setup = {"type": "setup", "at": 0, "players": ["Ann"], "seed": 3,
             "board": {"tiles": ["4B", "3B", "2B", "1A"]},
             "robots": {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15"}}
    g.apply(setup)
    with pytest.raises(GameError, match="round in play"):
        g.apply({"type": "hint", "at": 1, "level": 1})
    g.apply({"type": "reveal", "at": 1})
    events = g.apply({"type": "hint", "at": 2, "level": 2})
    assert events[-1] == {"type": "hinted", "at": 2, "round": 1, "level": 2}
    g.apply({"type": "hint", "at": 3, "level": 1})
    with pytest.raises(GameError, match="level"):
        g.apply({"type": "hint", "at": 4, "level": 0})
    g.advance(1000)  # the hourglass runs out: the chip goes face down
    assert g.s.rounds[-1]["hint"] == 2 and g.s.rounds[-1]["face"] == "down"
    duo = Game()
    duo.apply({**setup, "players": ["Ann", "Ben"]})
    duo.apply({"type": "reveal", "at": 1})
    with pytest.raises(GameError, match="solo"):
        duo.apply({"type": "hint", "at": 2, "level": 1})
