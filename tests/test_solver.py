"""The optimal solver, held to a plain breadth-first (Dijkstra, for the transparent robot's costs)
reference built on nothing but ``Position.legal_moves`` and the rules' own ricochet reading.
Every route the solver returns is judged again by ``validate_route`` here."""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.board import DIRECTIONS, Board, Direction, cell_name
from companion.rules import Position, Rules, slide, validate_route
from companion.solver import (
    SearchMemoryError,
    Solution,
    SolverError,
    check_bid,
    solve,
)
from companion.solver_tables import TableError, kind_tables, robot_kind, table_slide

EXAMPLES = Path(__file__).resolve().parents[1] / "companion" / "examples"


# ---------------------------------------------------------------- the reference


def reference_cost(pos: Position, max_cost: int, max_passes: int | None = None) -> int | None:
    """The least cost of a route of cost <= max_cost, or None: Dijkstra over (robots, each
    robot's ricochet progress, the last move when immediate reversal is forbidden, whether
    anything has moved yet), moves from ``legal_moves``, the goal test as RULES.md says.
    ``max_passes``: leave out the transparent robot's moves that pass more walls and barriers
    than this (to show what a limit costs)."""
    rules, goal = pos.rules, pos.target
    assert goal is not None
    names = list(pos.robots)
    strict = rules.ricochet == "strict"
    no_reversal = rules.immediate_reversal == "forbidden"
    start = (tuple(pos.robots[n] for n in names), tuple((False, None) for _ in names), None,
             False)
    best_cost = {start: 0}
    heap = [(0, 0, start)]
    tie = itertools.count(1)
    best = None
    while heap:
        cost, _, state = heapq.heappop(heap)
        if best is not None and cost >= best:
            break
        if cost > best_cost[state]:
            continue
        cells, progress, prev, _ = state
        here = pos.with_robots(dict(zip(names, cells, strict=True)))
        for move, s in here.legal_moves():
            new_cost = cost + s.cost
            if new_cost > max_cost or max_passes is not None and s.cost - 1 > max_passes:
                continue
            i = names.index(move.robot)
            if no_reversal and prev is not None and prev[0] == i and \
                    prev[1].opposite == move.direction:
                continue
            turned, last = progress[i]
            turned = turned or (s.deflected and rules.diagonal_counts_as_ricochet) or (
                last is not None and last.is_perpendicular(s.direction))
            if goal.claims(move.robot) and s.end == goal.cell:
                ok = {"strict": turned, "lenient": cost > 0, "off": True}[rules.ricochet]
                if ok and (best is None or new_cost < best):
                    best = new_cost
            new_cells = cells[:i] + (s.end,) + cells[i + 1:]
            new_prog = progress[:i] + ((turned, s.final_direction),) + progress[i + 1:] \
                if strict else progress
            nxt = (new_cells, new_prog, (i, s.final_direction) if no_reversal else None, True)
            if new_cost < best_cost.get(nxt, max_cost + 1):
                best_cost[nxt] = new_cost
                heapq.heappush(heap, (new_cost, next(tie), nxt))
    return best


def assert_agrees(pos: Position, max_cost: int) -> Solution:
    try:
        got = solve(pos, max_cost=max_cost)
    except SolverError as e:  # the documented limit of the move tables (never a real board)
        assume("ways to slide from one cell" not in str(e))
        raise
    expected = reference_cost(pos, max_cost)
    if expected is None:
        assert got.status == "no_solution", got.describe()
        assert got.moves is None
    else:
        assert got.solved, f"reference found {expected}: {got.describe()}"
        assert got.cost == expected, got.describe()
        verdict = validate_route(pos, got.moves)
        assert verdict.legal and verdict.reached, verdict.reason
        assert verdict.cost == got.cost
    return got


# ---------------------------------------------------------------- random positions

SMALL_ROBOTS = ("red", "green", "blue", "yellow", "black", "transparent")


@st.composite
def small_positions(draw) -> Position:
    n = draw(st.integers(3, 5))
    cells = [cell_name(c, n) for c in range(n * n)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells),
                                    st.sampled_from(["up", "right", "down", "left"])),
                          max_size=n * 2))
    diag_cells = draw(st.lists(st.sampled_from(cells), max_size=3, unique=True))
    diagonals = [{"cell": c, "color": draw(st.sampled_from(["red", "green", "blue", "yellow"])),
                  "orientation": draw(st.sampled_from(["/", "\\"]))} for c in diag_cells]
    edges = [(cell_name(i, n), "down") for i in range(n)] + \
        [(cell_name(i * n, n), "left") for i in range(n)] + \
        [(cell_name(i * n + n - 1, n), "right") for i in range(n)]
    openings = draw(st.lists(st.sampled_from(edges), max_size=2, unique=True))
    barrier_stop = draw(st.sampled_from(["illegal", "allowed"]))
    rules = {
        "ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
        "barrier_stop": barrier_stop,
        "diagonal_counts_as_ricochet": draw(st.booleans()),
        "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"])),
    }
    k = draw(st.integers(1, 3 if n > 3 else 2))
    names = draw(st.lists(st.sampled_from(SMALL_ROBOTS), min_size=k, max_size=k, unique=True))
    free = [c for c in cells if barrier_stop == "allowed" or c not in diag_cells]
    assume(len(free) >= k + 1)
    spots = draw(st.lists(st.sampled_from(free), min_size=k, max_size=k, unique=True))
    target = draw(st.sampled_from(cells))
    claimant = draw(st.sampled_from([*names, "any"]))
    data = {
        "board": {"size": n, "walls": [list(w) for w in walls], "diagonals": diagonals,
                  "openings": [list(o) for o in openings]},
        "robots": dict(zip(names, spots, strict=True)),
        "target": {"cell": target, "robot": claimant},
        "rules": rules,
    }
    return Position.from_dict(data)


@st.composite
def four_robot_positions(draw) -> Position:
    """Four robots that move alike on a small board: the solver's fast path."""
    n = draw(st.integers(4, 5))
    cells = [cell_name(c, n) for c in range(n * n)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells),
                                    st.sampled_from(["up", "right", "down", "left"])),
                          max_size=n * 2))
    spots = draw(st.lists(st.sampled_from(cells), min_size=4, max_size=4, unique=True))
    names = ("red", "green", "blue", "yellow")
    return Position.from_dict({
        "board": {"size": n, "walls": [list(w) for w in walls]},
        "robots": dict(zip(names, spots, strict=True)),
        "target": {"cell": draw(st.sampled_from(cells)),
                   "robot": draw(st.sampled_from(names))},
        "rules": {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
                  "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"]))},
    })


@st.composite
def walled_positions(draw) -> Position:
    """The transparent robot on a small board thick with walls, where one move may pass many."""
    n = draw(st.integers(4, 7))
    cells = [cell_name(c, n) for c in range(n * n)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells), st.sampled_from(["up", "right"])),
                          min_size=n * n // 2, max_size=n * n))
    diag_cells = draw(st.lists(st.sampled_from(cells), max_size=2, unique=True))
    diagonals = [{"cell": c, "color": "red", "orientation": draw(st.sampled_from(["/", "\\"]))}
                 for c in diag_cells]
    names = ["transparent", *draw(st.lists(st.sampled_from(["red", "green", "blue"]),
                                           max_size=2, unique=True))]
    free = [c for c in cells if c not in diag_cells]
    spots = draw(st.lists(st.sampled_from(free), min_size=len(names), max_size=len(names),
                          unique=True))
    return Position.from_dict({
        "board": {"size": n, "walls": [list(w) for w in walls], "diagonals": diagonals},
        "robots": dict(zip(names, spots, strict=True)),
        "target": {"cell": draw(st.sampled_from(free)),
                   "robot": draw(st.sampled_from(["transparent", "any"]))},
        "rules": {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
                  "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"])),
                  "transparent_robot": True},
    })


BOARD_SIDES = ("A", "B", "C", "D")


@st.composite
def full_positions(draw, sides: str = "ABCD") -> Position:
    order = draw(st.permutations([1, 2, 3, 4]))
    tiles = [f"{b}{draw(st.sampled_from(sides))}" for b in order]
    board = Board.from_tiles(tiles)
    names = ["red", "green", "blue", "yellow"]
    if draw(st.booleans()):
        names.append("black")
    diag = {d.cell for d in board.diagonals}
    targets = {t.cell for t in board.targets}
    free = [c for c in board.cells() if c not in board.blocked and c not in diag
            and c not in targets]
    spots = draw(st.lists(st.sampled_from(free), min_size=len(names), max_size=len(names),
                          unique=True))
    t = draw(st.sampled_from(board.targets))
    rules = {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
             "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"]))}
    return Position.from_dict({
        "board": {"tiles": tiles},
        "robots": {n: board.name(c) for n, c in zip(names, spots, strict=True)},
        "target": {"color": t.color, "shape": t.shape},
        "rules": rules,
    })


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_positions())
@pytest.mark.slow
def test_solver_agrees_with_the_reference_on_small_boards_with_every_rule_option(pos):
    assert_agrees(pos, max_cost=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(four_robot_positions())
@pytest.mark.slow
def test_solver_agrees_with_the_reference_with_four_robots_that_move_alike(pos):
    assert_agrees(pos, max_cost=5)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walled_positions())
@pytest.mark.slow
def test_solver_agrees_with_the_reference_when_the_transparent_robot_meets_many_walls(pos):
    assert_agrees(pos, max_cost=9)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_positions())
@pytest.mark.slow
def test_solver_agrees_with_the_reference_on_real_boards_within_three_moves(pos):
    assert_agrees(pos, max_cost=3)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_positions())
@pytest.mark.slow
def test_every_route_on_real_boards_is_legal_and_no_shorter_one_exists(pos):
    got = solve(pos, max_cost=12)
    assume(got.solved)
    verdict = validate_route(pos, got.moves)
    assert verdict.legal and verdict.reached, verdict.reason
    # nothing cheaper: the search bounded one below finds nothing
    assert solve(pos, max_cost=got.cost - 1).status == "no_solution"


@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(full_positions())
@pytest.mark.slow
def test_bitset_visited_set_gives_the_same_answer_as_the_hash_set(monkeypatch, pos):
    import companion.solver as solver_module

    monkeypatch.setattr(solver_module, "DENSE_AFTER", 10**9)
    runs = solve(pos, max_cost=9)
    monkeypatch.setattr(solver_module, "DENSE_AFTER", 30)
    bits = solve(pos, max_cost=9)
    assert (runs.status, runs.cost) == (bits.status, bits.cost)


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(small_positions())
def test_route_is_read_back_by_search_where_no_trail_was_kept(monkeypatch, pos):
    import companion.solver as solver_module

    monkeypatch.setattr(solver_module, "TRAIL_MAX", -1)  # only the first batch is recorded
    assert_agrees(pos, max_cost=6)


def test_hash_set_keeps_keys_whose_row_is_full():
    from companion.solver import HASH_WIDTH, _HashSet

    table = _HashSet()
    rows = table._rows(np.arange(1 << 16, dtype=np.uint64))
    same = np.flatnonzero(rows == rows[0])[:HASH_WIDTH + 4].astype(np.uint64)  # one row
    table.add(same[:5], 3)
    table.add(same[5:], 4)  # the row has room for three more; four go past it
    assert table.contains(same).all()
    assert not table.contains(same + np.uint64(1 << 40)).any()
    assert table.contains_at(same[:5], 3).all() and not table.contains_at(same[:5], 4).any()
    assert table.contains_at(same[5:], 4).all()
    others = np.arange(1 << 20, (1 << 20) + 5000, dtype=np.uint64)
    table.add(others, 5)  # grows: every key moves to a bigger table
    assert table.contains(same).all() and table.contains(others).all()
    keys, costs = table.items()
    assert keys.tolist() == sorted([*same.tolist(), *others.tolist()])
    assert costs[keys.searchsorted(same[5:])].tolist() == [4] * 7



def test_hash_set_batches_that_meet_in_rows_keep_every_key_and_cost():
    from companion.solver import HASH_WIDTH, _HashSet

    rng = np.random.default_rng(5)
    table = _HashSet(4)  # 16 rows: batches of hundreds meet in every row, most rows fill up
    want: dict[int, int] = {}
    for g in range(1, 8):
        keys = np.unique(rng.integers(0, 1 << 34, 300 * g, dtype=np.uint64))
        keys = keys[~table.contains(keys)]
        rng.shuffle(keys)
        table.add(keys, g)
        want.update(dict.fromkeys(keys.tolist(), g))
        assert int(table.fill.max()) <= HASH_WIDTH
    assert table.overflow.runs  # and a few went past their full row
    keys, costs = table.items()
    assert dict(zip(keys.tolist(), costs.tolist(), strict=True)) == want
    probe = np.array(list(want), np.uint64)
    assert table.contains(probe).all()
    assert not table.contains(probe + np.uint64(1 << 40)).any()
    found, value = table.lookup(probe)
    assert found.all() and value.tolist() == list(want.values())


# ---------------------------------------------------------------- the move tables


@settings(max_examples=60, deadline=None)
@given(small_positions(), st.data())
def test_move_tables_agree_with_rules_slide(pos, data):
    board, rules = pos.board, pos.rules
    for robot in pos.robots:
        try:
            t = kind_tables(board, rules, robot_kind(board, robot))
        except TableError:  # the documented limit of the tables (tiny boards, many barriers)
            assume(False)
        occ = pos.occupied_by_others(robot)
        start = pos.robots[robot]
        for o, opt in enumerate(t.options[start]):
            if opt is None:
                continue
            end, legal = table_slide(t, start, o, occ)
            s = slide(board, occ, start, robot, opt.direction, opt.passes, rules)
            assert legal == (s.error is None), (robot, opt, s)
            if legal:
                assert end == s.end


def test_move_tables_agree_with_rules_slide_on_a_diagonal_board():
    board = Board.from_tiles(["1D", "2D", "3D", "4D"])
    rules = Rules()
    for robot in ("red", "green", "blue", "yellow", "black"):
        t = kind_tables(board, rules, robot_kind(board, robot))
        for start in board.cells():
            if start in board.blocked or board.diagonal_at(start):
                continue
            for o, d in enumerate(DIRECTIONS):
                end, legal = table_slide(t, start, o, frozenset())
                s = slide(board, frozenset(), start, robot, d, (), rules)
                assert legal == (s.error is None) and (not legal or end == s.end)


# ---------------------------------------------------------------- the hardest positions


@pytest.mark.parametrize("name, length", [("hardest-25.json", 25), ("hardest-24.json", 24)])
@pytest.mark.slow
def test_the_published_hardest_positions_come_out_at_their_length(name, length):
    pos = Position.load(EXAMPLES / name)
    got = solve(pos)
    assert got.solved and got.length == length == got.cost
    verdict = validate_route(pos, got.moves)
    assert verdict.legal and verdict.reached


# ---------------------------------------------------------------- each rule


def position(board: dict, robots: dict, target: dict, **rules) -> Position:
    return Position.from_dict({"board": board, "robots": robots, "target": target,
                               "rules": rules or None})


def test_strict_ricochet_makes_a_straight_shot_longer():
    board = {"size": 6}
    robots = {"blue": "a1", "red": "f6"}
    target = {"cell": "a6", "robot": "blue"}
    off = solve(position(board, robots, target, ricochet="off"))
    strict = solve(position(board, robots, target, ricochet="strict"))
    assert off.cost == 1
    assert strict.cost > 1
    dirs = [m.direction for m in strict.moves if m.robot == "blue"]
    assert any(a.is_perpendicular(b) for a, b in itertools.pairwise(dirs))


def test_the_claim_test_under_strict_ricochet_matches_its_rule_move_by_move():
    # worked out only where a move ends on the target: every other move counts as claiming
    from companion import solver as solver_module
    pos = position({"size": 6}, {"blue": "a1", "red": "f6"}, {"cell": "a6", "robot": "blue"},
                   ricochet="strict")
    search = solver_module._Search(pos, pos.active_robots(), None, None, None, 1 << 30)
    rng = np.random.default_rng(7)
    for n in (50, solver_module.SMALL_CHUNK):  # both ways of working it out
        for shape, flag_shape, axis_shape in (((n, 4), (n, 1), (4,)), ((4, n), (n,), (4, 1)),
                                              ((4, n), (n,), (4, n))):
            check_claims(search, rng, shape, flag_shape, axis_shape)


def check_claims(search, rng, shape, flag_shape, axis_shape):
    from companion import solver as solver_module
    target, bit = search.target, solver_module.DEFLECTED_BIT
    codes = rng.integers(0, 3, shape).astype(np.uint16) * np.uint16(bit)
    codes |= np.where(rng.random(shape) < 0.5, target, (target + 1) % 36).astype(np.uint16)
    flag = rng.integers(0, 4, flag_shape).astype(np.uint8)
    axis = rng.integers(0, 2, axis_shape).astype(np.uint8)
    turned = (codes & bit) != 0
    turned |= flag == solver_module.DONE
    turned |= (flag >= solver_module.LAST_VERTICAL) & (
        (flag - solver_module.LAST_VERTICAL) != axis)
    turned |= (codes & 255) != target
    got = search._claims(codes, flag, axis)
    assert got.shape == codes.shape
    assert (got == turned).all()
    assert not got.all() and got.any()


def test_lenient_ricochet_forbids_only_the_one_straight_slide():
    board = {"size": 6}
    robots = {"blue": "a1", "red": "f6"}
    target = {"cell": "a6", "robot": "blue"}
    got = solve(position(board, robots, target, ricochet="lenient"))
    assert got.cost == 2


def test_vortex_can_be_taken_by_the_fifth_robot():
    board = {"size": 6, "walls": [["c4", "up"]]}
    robots = {"red": "a1", "black": "c1"}
    target = {"cell": "c4", "robot": "any"}
    got = solve(position(board, robots, target, ricochet="off"))
    assert got.cost == 1 and got.moves[0].robot == "black"


def test_vortex_under_strict_ricochet_picks_the_robot_that_can_turn():
    board = {"size": 6, "walls": [["c4", "up"]]}
    robots = {"red": "a4", "black": "c1"}
    target = {"cell": "c4", "robot": "any"}
    got = solve(position(board, robots, target))
    verdict = validate_route(position(board, robots, target), got.moves)
    assert verdict.reached
    assert got.cost == reference_cost(position(board, robots, target), 6)


def test_transparent_robot_pays_to_pass_a_wall_when_that_is_cheapest():
    board = {"size": 6, "walls": [["c3", "up"], ["c5", "up"]]}
    robots = {"transparent": "c1", "red": "f6"}
    target = {"cell": "c5", "robot": "transparent"}
    got = solve(position(board, robots, target, ricochet="off"))
    assert got.cost == 2 and got.length == 1
    assert got.moves[0].passes == ("wall",)


def test_transparent_robot_passes_seven_walls_in_one_move_when_that_is_cheapest():
    # a corridor along rank 1 with a wall between every two cells; rank 2 is blocked
    corridor = {"width": 8, "height": 2, "blocked": [f"{f}2" for f in "abcdefgh"],
                "walls": [[f"{f}1", "right"] for f in "abcdefg"]}
    pos = position(corridor, {"transparent": "a1"}, {"cell": "h1", "robot": "transparent"},
                   ricochet="off", transparent_robot=True)
    got = solve(pos)
    assert got.cost == 8 and got.length == 1
    assert got.moves[0].passes == ("wall",) * 7
    assert reference_cost(pos, 12) == 8
    assert reference_cost(pos, 12, max_passes=4) == 9  # what a limit of four would cost
    assert check_bid(pos, 8).meets is True
    assert check_bid(pos, 7).meets is False


def test_a_barrier_turns_a_robot_and_counts_as_a_ricochet():
    board = {"size": 6, "diagonals": [{"cell": "c3", "color": "red", "orientation": "/"}]}
    robots = {"blue": "c1"}
    target = {"cell": "f3", "robot": "blue"}
    got = solve(position(board, robots, target))
    assert got.cost == 1
    no_credit = solve(position(board, robots, target, diagonal_counts_as_ricochet=False))
    assert no_credit.cost != 1
    assert no_credit.cost == reference_cost(
        position(board, robots, target, diagonal_counts_as_ricochet=False), 6)


def test_stopping_on_a_barrier_only_where_the_house_rule_allows_it():
    board = {"size": 6, "walls": [["c3", "up"]],
             "diagonals": [{"cell": "c3", "color": "blue", "orientation": "/"}]}
    robots = {"blue": "c1"}
    target = {"cell": "c3", "robot": "blue"}
    assert solve(position(board, robots, target, ricochet="off",
                          barrier_stop="allowed")).cost == 1
    assert not solve(position(board, robots, target, ricochet="off")).solved


def test_a_robot_leaves_through_an_opening_and_comes_back_on_the_far_side():
    board = {"size": 6, "openings": [["a3", "left"]], "walls": [["d3", "left"]]}
    robots = {"green": "b3"}
    target = {"cell": "d3", "robot": "green"}
    got = solve(position(board, robots, target, ricochet="off"))
    assert got.cost == 1 and got.moves[0].direction == Direction.LEFT


def test_lenient_ricochet_counts_the_straight_slide_after_coming_back_to_the_start():
    # blue can only go back and forth (a1-b1, a1-a6); once it has, up from a1 is no longer
    # the straight slide from the round's start
    board = {"size": 6, "walls": [["b1", "right"], ["b1", "up"], ["a6", "right"]]}
    pos = position(board, {"blue": "a1"}, {"cell": "a6", "robot": "blue"}, ricochet="lenient")
    got = solve(pos)
    assert got.cost == 3 == reference_cost(pos, 6)
    assert got.moves[-1].text() == "blue up" and validate_route(pos, got.moves).reached
    rio = replace(pos, rules=replace(pos.rules, immediate_reversal="forbidden"))
    assert solve(rio).status == "no_solution" and reference_cost(rio, 8) is None


def test_forbidden_reversal_makes_a_lenient_route_longer():
    # the straight slide up is not accepted from the start; down and up again would do it
    pos = position({"size": 6}, {"blue": "a3"}, {"cell": "a6", "robot": "blue"},
                   ricochet="lenient")
    assert solve(pos).cost == 2
    strict_back = replace(pos, rules=replace(pos.rules, immediate_reversal="forbidden"))
    got = solve(strict_back)
    assert got.cost == 3 == reference_cost(strict_back, 6)
    verdict = validate_route(strict_back, got.moves)
    assert verdict.legal and verdict.reached


def test_forbidden_reversal_takes_away_a_ricochet_earned_by_going_back():
    # b1 is a dead end: right then straight back left gives blue a horizontal move to turn from
    board = {"size": 6, "walls": [["b1", "right"], ["b1", "up"], ["a6", "right"]]}
    robots = {"blue": "a1", "red": "f4"}
    pos = position(board, robots, {"cell": "a6", "robot": "blue"})
    allowed = solve(pos)
    assert allowed.cost == 3
    rio = replace(pos, rules=Rules.from_spec("riogrande-2003"))
    got = solve(rio)
    assert got.solved and got.cost > 3
    assert got.cost == reference_cost(rio, 8)
    verdict = validate_route(rio, got.moves)
    assert verdict.legal and verdict.reached, verdict.reason


def test_forbidden_reversal_through_a_barrier_costs_a_move():
    # up is turned right by the barrier on a3; left comes back through it, down to a1
    board = {"size": 6, "diagonals": [{"cell": "a3", "color": "red", "orientation": "/"}]}
    pos = position(board, {"blue": "a1"}, {"cell": "a1", "robot": "blue"})
    got = solve(pos)
    assert got.cost == 2 and [m.text() for m in got.moves] == ["blue up", "blue left"]
    rio = replace(pos, rules=Rules.from_spec("riogrande-2003"))
    got = solve(rio)
    assert got.cost == 3 == reference_cost(rio, 6)
    assert validate_route(rio, got.moves).reached
    assert check_bid(rio, 2).meets is False and check_bid(rio, 3).meets is True


def test_six_robots_with_the_transparent_one_as_a_helper():
    board = Board.from_tiles(["1A", "2A", "3A", "4A"])
    pos = Position.from_dict({
        "board": {"tiles": ["1A", "2A", "3A", "4A"]},
        "robots": {"red": "a1", "green": "p1", "blue": "a16", "yellow": "p16",
                   "black": "e5", "transparent": "k11"},
        "target": {"color": "red", "shape": board.targets[0].shape
                   if board.targets[0].color == "red" else "circle"},
        "rules": {"transparent_robot": True},
    })
    got = solve(pos, max_cost=12)
    assert got.solved
    assert validate_route(pos, got.moves).reached


# ---------------------------------------------------------------- limits and bad input


def test_a_walled_off_target_is_reported_at_once_with_the_reason():
    board = {"size": 8, "walls": [["d4", "up"], ["d4", "down"], ["d4", "left"],
                                  ["d4", "right"]]}
    pos = position(board, {"red": "a1", "blue": "h8"}, {"cell": "d4", "robot": "red"})
    started = time.perf_counter()
    got = solve(pos)
    assert time.perf_counter() - started < 0.5
    assert got.status == "no_solution" and "walls" in got.reason


def test_a_robot_that_cannot_move_gives_no_solution_promptly():
    board = {"size": 8, "walls": [["a1", "up"], ["a1", "right"]]}
    pos = position(board, {"red": "a1", "blue": "h8"}, {"cell": "e5", "robot": "red"})
    got = solve(pos)
    assert got.status == "no_solution" and got.expanded == 0
    assert got.reason == "red can never reach e5: walls cut it off from every cell it can get to"


def test_a_cell_no_robot_can_stop_on_is_found_impossible_by_searching_it_out():
    # an open board: red could pass h8 but nothing can ever stop it there
    pos = position({"size": 16}, {"red": "a1"}, {"cell": "h8", "robot": "red"})
    got = solve(pos)
    assert got.status == "no_solution" and 0 < got.expanded < 1000
    assert got.reason == "red cannot reach h8 whatever the robots do"
    assert check_bid(pos, 30).meets is False


def test_a_target_on_a_barrier_is_impossible_at_once_unless_the_house_rule_allows_it():
    board = {"size": 6, "diagonals": [{"cell": "c3", "color": "red", "orientation": "/"}]}
    pos = position(board, {"blue": "a1", "red": "f6"}, {"cell": "c3", "robot": "blue"})
    got = solve(pos)
    assert got.status == "no_solution" and "barrier" in got.reason and got.expanded == 0


def test_a_position_without_target_is_refused():
    pos = Position.from_dict({"board": {"size": 6}, "robots": {"red": "a1"}})
    with pytest.raises(SolverError, match="target"):
        solve(pos)


def test_max_cost_below_the_optimum_says_no_solution_within_it():
    pos = Position.load(EXAMPLES / "hardest-24.json")
    got = solve(pos, max_cost=10)
    assert got.status == "no_solution" and "within 10" in got.reason
    assert got.lower_bound == 11


def test_check_bid_below_the_optimum_fails_and_at_the_optimum_succeeds():
    board = {"size": 6}
    pos = position(board, {"blue": "a1", "red": "f6"}, {"cell": "a6", "robot": "blue"})
    best = solve(pos).cost
    assert check_bid(pos, best - 1).meets is False
    ok = check_bid(pos, best)
    assert ok.meets is True and ok.solution.cost == best
    with pytest.raises(SolverError):
        check_bid(pos, 0)


def test_a_deadline_stops_the_search_with_a_proven_lower_bound():
    pos = Position.load(EXAMPLES / "hardest-25.json")
    got = solve(pos, deadline=time.monotonic() + 0.3)
    assert got.status == "deadline"
    assert 1 <= got.lower_bound <= 25
    assert f"{got.lower_bound}" in got.reason


def test_a_search_in_a_worker_thread_stops_when_cancelled():
    pos = Position.load(EXAMPLES / "hardest-25.json")
    cancel = threading.Event()
    out: list[Solution] = []
    worker = threading.Thread(target=lambda: out.append(solve(pos, cancel=cancel)))
    worker.start()
    cancel.set()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert out[0].status == "cancelled"


def test_the_memory_cap_raises_a_clear_error():
    pos = Position.load(EXAMPLES / "hardest-24.json")
    with pytest.raises(SearchMemoryError, match="MiB"):
        solve(pos, memory_limit=4 << 20)


def test_solution_json_has_the_contract_fields():
    pos = position({"size": 6}, {"blue": "a1", "red": "f6"}, {"cell": "a6", "robot": "blue"})
    out = solve(pos).to_json()
    assert out["length"] == len(out["moves"]) and out["cost"] == out["length"]
    assert set(out["moves"][0]) >= {"robot", "direction"}


def test_rules_presets_all_solve_the_same_board():
    base = Position.load(EXAMPLES / "hardest-24.json")
    for preset in ("classic-1999", "riogrande-2003"):
        got = solve(replace(base, rules=Rules.from_spec(preset)), max_cost=8)
        assert got.status == "no_solution"


def _look_ahead_cases(count: int):
    """(search, key, estimate, position) on real boards under the default rules (strict
    must-ricochet) and with it off, the robots placed at random."""
    import random

    import companion.solver as solver_module
    from companion.benchmarks.solver import random_position

    rng = random.Random(7)
    for i in range(count):
        pos = random_position(rng, "ABC", (), "colour")
        if i % 2:
            pos = replace(pos, rules=replace(pos.rules, ricochet="off"))
        search = solver_module._Search(pos, pos.active_robots(), None, None, None, 1 << 30)
        assert search.fast
        lay = search.layout
        key = lay.pack(dict(pos.robots), solver_module.UNMOVED if lay.strict else 0)
        yield search, key, int(search.dist[-1][lay.cells_of(key)[-1]]), pos


def test_the_numpy_look_ahead_agrees_with_the_walk_in_python():
    """The whole-route look-ahead (every move of the active robot alone one closer), worked
    out for a batch with numpy, and the walk that reads the route back, in Python."""
    passed = failed = 0
    for search, key, h, _ in _look_ahead_cases(80):
        for rem in {h, h + 1}:
            if rem >= 255:
                continue
            got = bool(search._alone(np.array([key, key], np.uint64), rem)[0])
            assert got == (search._alone_path(key, rem) is not None)
            passed += got
            failed += not got
    assert passed and failed


def test_a_move_one_closer_from_a_position_that_fails_the_look_ahead_fails_it_too():
    """What lets the search keep a raised estimate for such a child (_Search._inherits): the
    active robot's move one closer from a position that cannot finish alone, each move one
    closer, leaves a position that cannot either (else the first could)."""
    import companion.solver as solver_module

    children = 0
    for search, key, h, pos in _look_ahead_cases(80):
        if not 1 <= h < 255 or search._alone(np.array([key], np.uint64), h)[0]:
            continue
        lay = search.layout
        active = pos.active_robots()[0]
        others = pos.occupied_by_others(active)
        for d in DIRECTIONS:
            moved = slide(pos.board, others, pos.robots[active], active, d, rules=pos.rules)
            if moved.error or search.dist[-1][moved.end] != h - 1:
                continue
            axis = int(d) & 1
            flag = solver_module._flag_next(lay.flag_of(key), 0, axis, axis) if lay.strict else 0
            child = lay.pack({**pos.robots, active: moved.end}, flag)
            assert not search._alone(np.array([child], np.uint64), h - 1)[0]
            children += 1
    assert children
