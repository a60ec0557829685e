"""Every distinct optimal route (``companion.routes``, ``companion solve --all``), held to a
brute-force enumeration built on nothing but ``Position.legal_moves`` and ``validate_route``:
every move sequence of the optimal cost that the rules accept, grouped by swapping
neighbouring moves of two robots that end on the same cells in either order."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.board import cell_name
from companion.routes import optimal_routes
from companion.rules import Position, validate_route
from companion.solver import solve

ROBOTS = ("red", "green", "blue", "transparent")


@st.composite
def small_positions(draw) -> Position:
    n = draw(st.integers(3, 4))
    cells = [cell_name(c, n) for c in range(n * n)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells),
                                    st.sampled_from(["up", "right", "down", "left"])),
                          max_size=n * 2))
    diag = draw(st.lists(st.sampled_from(cells), max_size=2, unique=True))
    k = draw(st.integers(1, 3))
    names = draw(st.lists(st.sampled_from(ROBOTS), min_size=k, max_size=k, unique=True))
    spots = draw(st.lists(st.sampled_from([c for c in cells if c not in diag]), min_size=k,
                          max_size=k, unique=True))
    return Position.from_dict({
        "board": {"size": n, "walls": [list(w) for w in walls],
                  "diagonals": [{"cell": c, "color": draw(st.sampled_from(["red", "blue"])),
                                 "orientation": draw(st.sampled_from(["/", "\\"]))}
                                for c in diag]},
        "robots": dict(zip(names, spots, strict=True)),
        "target": {"cell": draw(st.sampled_from(cells)),
                   "robot": draw(st.sampled_from([*names, "any"]))},
        "rules": {"ricochet": draw(st.sampled_from(["strict", "lenient", "off"])),
                  "immediate_reversal": draw(st.sampled_from(["allowed", "forbidden"])),
                  "barrier_stop": draw(st.sampled_from(["illegal", "allowed"])),
                  "transparent_robot": "transparent" in names},
    })


def brute_force(pos: Position, cost: int) -> set[tuple]:
    """Every move sequence of exactly ``cost`` that the rules accept as reaching the target."""
    found: set[tuple] = set()

    def grow(here: Position, prefix: list, spent: int) -> None:
        for move, s in here.legal_moves():
            total = spent + s.cost
            if total > cost:
                continue
            route = [*prefix, move]
            if total == cost:
                verdict = validate_route(pos, route)
                if verdict.legal and verdict.reached and verdict.cost == cost:
                    found.add(tuple(route))
                continue
            robots = dict(here.robots)
            robots[move.robot] = s.end
            grow(here.with_robots(robots), route, total)

    grow(pos, [], 0)
    return found


def group(pos: Position, seqs: set[tuple]) -> set[frozenset]:
    """Routes as classes: join two sequences that differ by a swap of neighbouring moves of
    two robots standing alike after both moves in either order."""
    where = {s: [validate_route(pos, s[:k + 1]).robots for k in range(len(s))] for s in seqs}
    classes = {s: {s} for s in seqs}
    for s in seqs:
        for k in range(len(s) - 1):
            if s[k].robot == s[k + 1].robot:
                continue
            t = s[:k] + (s[k + 1], s[k]) + s[k + 2:]
            if t in seqs and where[s][k + 1] == where[t][k + 1]:
                merged = classes[s] | classes[t]
                for x in merged:
                    classes[x] = merged
    return {frozenset(c) for c in classes.values()}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.filter_too_much])
@given(pos=small_positions())
@pytest.mark.slow
def test_every_optimal_route_is_listed_once_as_brute_force_finds_them(pos):
    best = solve(pos, max_cost=4)
    assume(best.solved and best.cost <= 4)
    got = optimal_routes(pos, limit=10_000)
    assert got.complete and got.cost == best.cost
    expected = brute_force(pos, best.cost)
    assert {s for g in got.groups for s in g} == expected
    assert {frozenset(g) for g in got.groups} == group(pos, expected)
    assert got.count == len(got.groups) and got.sequences == len(expected)
    for route in got.routes:  # each shown route is one of its class, legal and optimal
        verdict = validate_route(pos, route)
        assert verdict.legal and verdict.reached and verdict.cost == best.cost


def test_the_cap_stops_the_listing_and_says_the_counts_are_lower_bounds():
    pos = Position.from_dict({
        "board": {"size": 5, "walls": []},
        "robots": {"red": "a1", "green": "c3"},
        "target": {"cell": "e5", "robot": "red"},
        "rules": {"ricochet": "off"},
    })
    full = optimal_routes(pos, limit=100)
    assert full.complete and full.sequences == full.count == 2  # up-right, right-up
    capped = optimal_routes(pos, limit=100, max_sequences=1)
    assert not capped.complete and capped.sequences == 1 and "lower bounds" in capped.reason


def test_solve_all_prints_the_routes_and_their_count(cli, tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({
        "board": {"size": 4, "walls": []},
        "robots": {"red": "a1", "green": "d4"},
        "target": {"cell": "d1", "robot": "red"},
        "rules": {"ricochet": "off"},
    }))
    code, out, _ = cli("solve", str(path), "--all", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["count"] == len(got["routes"]) and got["complete"]
    assert got["routes"][0] == [{"robot": "red", "direction": "right"}]
    code, out, _ = cli("solve", str(path), "--all")
    assert code == 0 and "1 distinct optimal route of 1 move" in out
    code, _, err = cli("solve", str(path), "--all", "--limit", "0")
    assert code == 2 and "--limit" in err
