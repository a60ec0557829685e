"""The plain-Python small search (:mod:`companion.solver_small`), held to the same reference
breadth-first search as the numpy one, and to the numpy search itself on real boards: equal
optimal costs, and every route judged again by ``validate_route``."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_solver import full_positions, reference_cost

import companion.solver as solver_module
from companion.benchmarks.solver import random_position
from companion.board import Board, cell_name
from companion.rules import Position, Rules, validate_route
from companion.solver import solve
from companion.solver_small import applies, relaxed_distance, solve_small
from companion.solver_tables import _build_kind, _relaxed_distance, forget_boards

ROBOTS = ("red", "green", "blue", "yellow", "black")


def small_cost(pos: Position, max_cost: int | None) -> int | None:
    """The small search's optimal cost within ``max_cost`` (None: none), its route checked."""
    claimers = pos.active_robots()
    assert applies(pos, claimers)
    found = solve_small(pos, claimers, max_cost, budget=10**6)
    if found is None:
        return None
    moves, cost, _ = found
    verdict = validate_route(pos, moves)
    assert verdict.legal and verdict.reached, verdict.reason
    assert verdict.cost == cost == len(moves)
    return cost


@st.composite
def plain_positions(draw) -> Position:
    """Robots that move alike on a small walled board, any must-ricochet rule: what the small
    search takes (a board smaller than 16 x 16 sits in the corner of its grid)."""
    n = draw(st.integers(3, 6))
    cells = [cell_name(c, n) for c in range(n * n)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells),
                                    st.sampled_from(["up", "right", "down", "left"])),
                          max_size=n * 2))
    k = draw(st.integers(1, 5 if n > 3 else 3))
    names = ROBOTS[:k]
    spots = draw(st.lists(st.sampled_from(cells), min_size=k, max_size=k, unique=True))
    return Position.from_dict({
        "board": {"size": n, "walls": [list(w) for w in walls]},
        "robots": dict(zip(names, spots, strict=True)),
        "target": {"cell": draw(st.sampled_from(cells)), "robot": draw(st.sampled_from(names))},
        "rules": {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"]))},
    })


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_positions())
@pytest.mark.slow  # 300 boards, half a minute; the numpy comparison below stays in the fast lane
def test_small_search_agrees_with_the_reference_on_small_boards(pos):
    assert small_cost(pos, 7) == reference_cost(pos, 7)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(full_positions(sides="ABC"))
@pytest.mark.slow
def test_small_search_agrees_with_the_reference_on_real_boards_within_three_moves(pos):
    assume(not pos.target.is_vortex)
    pos = Position(pos.board, pos.robots, pos.target, pos.rules.__class__.from_spec(
        {"ricochet": pos.rules.ricochet}))  # immediate reversal allowed
    assert small_cost(pos, 3) == reference_cost(pos, 3)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(["strict", "lenient", "off"]),
       st.booleans())
def test_small_search_agrees_with_the_numpy_search_on_real_boards(seed, ricochet, fifth):
    pos = random_position(random.Random(seed), "ABC", ("black",) if fifth else (), "colour")
    pos = Position(pos.board, pos.robots, pos.target,
                   pos.rules.__class__.from_spec({"ricochet": ricochet}))
    claimers = pos.active_robots()
    found = solve_small(pos, claimers, None, budget=3000)
    if found is None:  # past the budget: a long one, left to the numpy search
        return
    moves, cost, _ = found
    verdict = validate_route(pos, moves)
    assert verdict.legal and verdict.reached and verdict.cost == cost, verdict.reason
    big = solver_module._Search(pos, claimers, None, None, None, 1 << 30).run()
    assert big.cost == cost
    # and within a bid: one less finds nothing, the optimum itself finds it
    assert solve_small(pos, claimers, cost - 1, budget=3000) is None
    assert solve_small(pos, claimers, cost, budget=3000)[1] == cost


def test_solve_takes_the_small_search_and_falls_back_past_its_budget(monkeypatch):
    pos = random_position(random.Random(7), "ABC", (), "colour")
    forget_boards()
    small = solve(pos)
    monkeypatch.setattr(solver_module, "SMALL_BUDGET", 0)  # the numpy search alone
    big = solve(pos)
    assert small.cost == big.cost
    calls = []
    real = solver_module.solve_small

    def spy(*args, **kwargs):
        calls.append(out := real(*args, **kwargs))
        return out

    monkeypatch.setattr(solver_module, "solve_small", spy)
    monkeypatch.setattr(solver_module, "SMALL_BUDGET", 1)  # gives up at once: numpy answers
    assert solve(pos).cost == big.cost
    # it gave up, or needed no more than its budget (found alone, or after one expansion)
    assert len(calls) == 1 and (calls[0] is None or calls[0][2] <= 1)
    monkeypatch.setattr(solver_module, "SMALL_BUDGET", 0)
    assert solve(pos).cost == big.cost and len(calls) == 1  # not even tried


def test_the_small_search_leaves_what_it_does_not_model_to_the_numpy_search():
    base = random_position(random.Random(3), "ABC", (), "colour")
    assert applies(base, base.active_robots())
    rules = base.rules.__class__
    reversal = Position(base.board, base.robots, base.target,
                        rules.from_spec("riogrande-2003"))
    assert not applies(reversal, reversal.active_robots())
    diag = random_position(random.Random(3), "D", (), "colour")
    assert diag.board.diagonals and not applies(diag, diag.active_robots())
    clear = random_position(random.Random(3), "ABC", ("transparent",), "colour")
    assert not applies(clear, clear.active_robots())
    vortex = random_position(random.Random(3), "ABC", ("black",), "vortex")
    assert not applies(vortex, vortex.active_robots())
    opening = Position.from_dict({
        "board": {"size": 4, "openings": [["a1", "left"]]},
        "robots": {"red": "b2"}, "target": {"cell": "c3", "robot": "red"}})
    assert not applies(opening, opening.active_robots())
    assert isinstance(base.board, Board)


def test_prepare_builds_the_small_search_walls_and_estimates_too():
    from companion.solver import prepare
    from companion.solver_small import _walls, inner

    pos = random_position(random.Random(11), "ABC", (), "colour")
    forget_boards()
    prepare(pos)
    walls = _walls(pos.board)
    assert all(inner(pos.board, t.cell) in walls.dist for t in pos.board.targets)
    assert solve(pos).solved


def test_the_walls_of_a_tiled_board_are_put_together_from_each_tile_as_the_board_has_them():
    """The small search or-s each tile's walls together; read from the board's own set of
    walls instead (as for a board given wall by wall), they are the same, with every tile side
    laid in every quarter."""
    from dataclasses import replace
    from itertools import permutations

    from companion.board import tile_library
    from companion.solver_small import _Walls

    sides: dict[int, list[str]] = {}
    for name, tile in tile_library()["quadrants"].items():
        sides.setdefault(tile["board"], []).append(name)
    laid = set()
    for order in permutations(sorted(sides)):
        for i in range(len(sides[order[0]])):
            names = [sides[n][i] for n in order]
            board = Board.from_tiles(names)
            by_tile = _Walls(board)
            by_wall = _Walls(replace(board, tiles=None))
            assert by_tile.block == by_wall.block, names
            laid.update(enumerate(names))
    assert len(laid) == 4 * sum(len(v) for v in sides.values())  # each side in each quarter


def _unproven(pos: Position, budget: int):
    """The route the small search found but did not prove optimal, giving up at ``budget``."""
    unproven = []
    found = solve_small(pos, pos.active_robots(), None, budget, unproven)
    return None if found is not None or not unproven else unproven[0]


def _numpy_search(pos: Position, known=None):
    search = solver_module._Search(pos, pos.active_robots(), None, None, None, 1 << 30)
    search.known = known
    return search.run()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6), st.sampled_from(["strict", "lenient", "off"]))
def test_a_route_the_small_search_gives_up_with_is_legal_and_never_beats_the_optimum(
        seed, ricochet):
    pos = random_position(random.Random(seed), "ABC", (), "colour")
    pos = Position(pos.board, pos.robots, pos.target,
                   pos.rules.__class__.from_spec({"ricochet": ricochet}))
    plain = None
    for budget in (5, 15, 40, 100):
        known = _unproven(pos, budget)
        if known is None:
            continue
        moves, cost = known
        verdict = validate_route(pos, moves)
        assert verdict.legal and verdict.reached and verdict.cost == cost == len(moves)
        plain = plain or _numpy_search(pos)
        assert cost >= plain.cost
        # handed to the numpy search, it ends that search no sooner than it is proven optimal
        helped = _numpy_search(pos, known)
        assert helped.cost == plain.cost
        assert helped.expanded <= plain.expanded


def test_the_numpy_search_returns_a_known_route_only_once_nothing_cheaper_is_left():
    """Over fixed positions the small search gives up on, the route it hands over is
    sometimes optimal (the numpy search then stops as soon as nothing open is cheaper) and
    sometimes not (the numpy search then finds the cheaper one): both are met here."""
    optimal = dearer = 0
    for seed in range(60):
        pos = random_position(random.Random(seed), "ABC", (), "colour")
        for budget in (20, 60):
            known = _unproven(pos, budget)
            if known is None:
                continue
            plain, helped = _numpy_search(pos), _numpy_search(pos, known)
            assert helped.cost == plain.cost
            if known[1] == plain.cost:
                optimal += 1
                assert helped.moves == known[0]
                assert helped.expanded <= plain.expanded
            else:
                dearer += 1
                assert helped.moves != known[0] and len(helped.moves) == plain.cost
    assert optimal and dearer


def test_solve_hands_the_small_search_route_to_the_numpy_search(monkeypatch):
    """Positions past the small search's budget, with an optimal route found on the way: the
    solution is that route, proven by the numpy search, which never expands more positions
    than without it, and fewer where the level of the optimum has work left to do."""
    positions = [p for p in (random_position(random.Random(s), "ABC", (), "colour")
                             for s in range(60))
                 if (k := _unproven(p, solver_module.SMALL_BUDGET)) is not None
                 and k[1] == _numpy_search(p).cost]
    results = []
    for pos in positions:
        known = _unproven(pos, solver_module.SMALL_BUDGET)
        result = solve(pos)
        assert result.solved and result.moves == known[0]
        results.append(result)
    monkeypatch.setattr(solver_module, "SMALL_BUDGET", 0)
    saved = 0
    for pos, result in zip(positions, results, strict=True):
        alone = solve(pos)
        assert alone.cost == result.cost and result.expanded <= alone.expanded
        saved += result.expanded < alone.expanded
    assert saved


def test_a_numpy_search_stopped_at_its_deadline_still_gives_the_route_handed_to_it():
    import time

    stopped = []
    for seed in range(60):
        pos = random_position(random.Random(seed), "ABC", (), "colour")
        known = _unproven(pos, 20)
        if known is None:
            continue
        search = solver_module._Search(pos, pos.active_robots(), None, time.monotonic(), None,
                                       1 << 30)
        search.known = known
        got = search.run()
        if got.status == "solved":  # proven before the first check of the clock
            assert got.moves == known[0]
            continue
        assert got.status == "deadline"
        assert got.moves == known[0] and got.cost == known[1] >= got.lower_bound
        stopped.append(seed)
    assert stopped


def test_the_bitboard_distance_is_the_numpy_tables_distance():
    rng = random.Random(18)
    for _ in range(3):
        board = Board.from_tiles([f"{n}{rng.choice('ABC')}" for n in rng.sample([1, 2, 3, 4], 4)])
        tables = _build_kind(board, Rules(), "plain")
        for target in [t.cell for t in board.targets] + [0, 255, 119]:  # 119: a blocked cell
            got = relaxed_distance(board, target)
            assert got is not None and got.dtype == "uint8" and got.size == 257
            assert (got == _relaxed_distance(tables, board, target)).all(), target
    diagonals = Board.from_tiles(["1D", "2A", "3A", "4A"])
    assert diagonals.diagonals and relaxed_distance(diagonals, 0) is None
    assert relaxed_distance(Board.from_dict({"size": 8, "walls": []}), 0) is None
