"""Live route verification on observation streams built with the rules: counting, verdicts,
ambiguity, lifted robots, restoring the board, and the round around the demonstrations."""

from __future__ import annotations

import json
import random

import pytest

from companion.board import Board, tile_names
from companion.cli import example_path, main
from companion.rules import Goal, Move, Position, parse_route, validate_route
from companion.verify import (
    Demonstration,
    MoveFinder,
    NotRestoredError,
    RoundVerifier,
    solution_event,
)

# The bundled example board (tiles 4B 3B 2B 1A) with the red square (l6) as the target:
# red right, red up, red left, red down is a shortest route (4 moves, with ricochets).
RED_SQUARE_ROUTE = "red right, red up, red left, red down"


def red_square() -> Position:
    p = Position.load(example_path())
    return p.with_target(Goal(p.board.cell("l6"), "red", "red", "square"))


def pos(board: dict, robots: dict, target: dict, rules=None) -> Position:
    data = {"board": board, "robots": robots, "target": target}
    if rules is not None:
        data["rules"] = rules
    return Position.from_dict(data)


def looks(p: Position, route: str) -> list[dict[str, str]]:
    """What a camera sees after each move of ``route``: robot name → cell name."""
    out = []
    for m in parse_route(route):
        p = p.push(m)
        out.append({r: p.board.name(c) for r, c in p.robots.items()})
    return out


def feed(demo, observations, t0: float = 1.0) -> list[dict]:
    events: list[dict] = []
    for k, obs in enumerate(observations):
        events += demo.observe(obs, at=t0 + k)
    return events


def of_type(events, kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def verdicts(events) -> list[str]:
    return [e["verdict"] for e in events if "verdict" in e]


# ---------------------------------------------------------------- counting and verdicts


def test_optimal_route_is_a_success_with_the_right_count():
    p = red_square()
    demo = Demonstration(p, bid=4)
    events = feed(demo, looks(p, RED_SQUARE_ROUTE))
    moves = of_type(events, "move")
    assert [e["move"] for e in moves] == RED_SQUARE_ROUTE.split(", ")
    assert [e["count"] for e in moves] == [1, 2, 3, 4]
    assert [(e["from"], e["to"]) for e in moves][0] == ("c2", "n2")
    assert verdicts(events) == ["success"]
    success = events[-1]
    assert success["type"] == "success" and success["count"] == 4 and success["bid"] == 4
    assert demo.finished and not demo.restored  # the robots stay after a success


def test_every_event_is_json_with_a_type():
    p = red_square()
    demo = Demonstration(p, bid=4, player="Ada")
    events = feed(demo, [None, *looks(p, RED_SQUARE_ROUTE)])
    assert events and all(isinstance(e["type"], str) for e in events)
    assert json.loads(json.dumps(events)) == events
    assert all(e["player"] == "Ada" for e in events)


def test_longer_route_is_over_bid_at_the_move_that_passes_it():
    p = red_square()
    route = "yellow left, green up, " + RED_SQUARE_ROUTE  # 6 moves against a bid of 4
    demo = Demonstration(p, bid=4)
    events = feed(demo, looks(p, route))
    assert verdicts(events) == ["over_bid"]
    over = of_type(events, "over_bid")[0]
    assert over["count"] == 5
    moves = of_type(events, "move")
    assert [e["count"] for e in moves] == [1, 2, 3, 4, 5]
    assert moves[-1]["move"] == "red left"
    assert "past the bid of 4" in over["reason"]


def test_over_bid_is_caught_inside_a_look_that_hides_several_moves():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=2)
    events = feed(demo, [seen[2]])  # three moves between two looks, bid 2
    assert verdicts(events) == ["over_bid"]
    assert [e["count"] for e in of_type(events, "move")] == [1, 2, 3]
    assert of_type(events, "over_bid")[0]["count"] == 3


def test_robot_stopped_mid_slide_is_illegal_at_that_move():
    p = red_square()
    first = looks(p, "red right")[0]  # red on n2
    up = p.push(Move.parse("red right")).slide(Move.parse("red up"))
    short = p.board.name(up.path[-2])  # one cell before where red up really stops
    demo = Demonstration(p, bid=4)
    events = feed(demo, [first, {**first, "red": short}])
    assert verdicts(events) == ["illegal"]
    illegal = of_type(events, "illegal")[0]
    assert illegal["move_number"] == 2
    assert illegal["reason"].startswith(f"red stopped on {short}: nothing stops it there")
    assert [e["count"] for e in of_type(events, "move")] == [1]


def test_robot_through_a_wall_is_illegal_with_the_wall_named():
    p = red_square()
    # red up from c2 stops below a wall; put it beyond.
    up = p.slide(Move.parse("red up"))
    beyond = p.board.name(up.end + p.board.width)
    demo = Demonstration(p, bid=4)
    events = demo.observe({**looks(p, "green up")[0], "green": "a13", "red": beyond}, at=2.0)
    illegal = of_type(events, "illegal")[0]
    assert f"red cannot get from c2 to {beyond} going up" in illegal["reason"]


def test_two_quick_moves_between_looks_count_as_two():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=4)
    events = feed(demo, [seen[1], seen[3]])  # round each corner unseen
    moves = of_type(events, "move")
    assert [e["count"] for e in moves] == [1, 2, 3, 4]
    assert [e["in_look"] for e in moves] == [2, 2, 2, 2]
    assert verdicts(events) == ["success"]


def test_two_robots_moved_under_one_hand_are_both_counted():
    p = red_square()
    seen = looks(p, "yellow left, green up")
    demo = Demonstration(p, bid=6)
    events = feed(demo, [None, seen[1]])
    assert of_type(events, "occluded")
    moves = of_type(events, "move")
    assert sorted(e["move"] for e in moves) == ["green up", "yellow left"]
    assert moves[-1]["count"] == 2
    assert not of_type(events, "ambiguous")  # the same two moves in either order


def test_same_board_again_is_no_move():
    p = red_square()
    seen = looks(p, "red right")
    demo = Demonstration(p, bid=4)
    events = feed(demo, [seen[0], None, seen[0], seen[0]])
    assert len(of_type(events, "move")) == 1


# ---------------------------------------------------------------- the ricochet rule

LANE = {"size": 8, "walls": [["a5", "up"], ["d1", "right"]]}


def test_straight_route_without_a_ricochet_is_not_a_success():
    p = pos(LANE, {"blue": "a1", "red": "h8"}, {"cell": "a5", "robot": "blue"})
    demo = Demonstration(p, bid=3)
    events = demo.observe({"blue": "a5", "red": "h8"}, at=1.0)
    assert verdicts(events) == []
    unmet = of_type(events, "rule_unmet")[0]
    assert unmet["rule"] == "ricochet"
    assert "ricochet" in unmet["reason"]
    # The player ends it there: the demonstration failed, blue must go back.
    end = demo.done(at=2.0)
    assert verdicts(end) == ["incomplete"]
    assert of_type(end, "restore")[0]["robots"] == {"blue": {"at": "a5", "to": "a1"}}


def test_leaving_and_coming_back_with_a_turn_is_a_success():
    p = pos(LANE, {"blue": "a1", "red": "h8"}, {"cell": "a5", "robot": "blue"})
    demo = Demonstration(p, bid=3)
    events = feed(demo, [{"blue": "d1", "red": "h8"}, {"blue": "a1", "red": "h8"},
                         {"blue": "a5", "red": "h8"}])
    assert verdicts(events) == ["success"]
    assert events[-1]["count"] == 3


def test_a_straight_route_is_a_success_when_the_ricochet_rule_is_off():
    p = pos(LANE, {"blue": "a1", "red": "h8"}, {"cell": "a5", "robot": "blue"},
            rules={"ricochet": "off"})
    events = Demonstration(p, bid=1).observe({"blue": "a5", "red": "h8"}, at=1.0)
    assert verdicts(events) == ["success"]


def test_success_needs_the_route_to_be_judged_legal_by_the_rules():
    # Under riogrande-2003 a robot may not go straight back the way it came.
    p = pos({"size": 8}, {"blue": "c3"}, {"cell": "h8", "robot": "blue"},
            rules="riogrande-2003")
    demo = Demonstration(p, bid=5)
    events = feed(demo, [{"blue": "c8"}, {"blue": "c1"}])
    assert verdicts(events) == ["illegal"]
    assert "straight back" in of_type(events, "illegal")[0]["reason"]


def test_a_reversal_the_rules_forbid_is_read_as_the_shortest_legal_alternative():
    # Blue up then straight down is forbidden under riogrande-2003 unless another robot moved
    # in between; red out and back under the same hand makes it legal, in three moves.
    p = pos({"size": 8}, {"blue": "c3", "red": "h8"}, {"cell": "a1", "robot": "blue"},
            rules="riogrande-2003")
    demo = Demonstration(p, bid=5)
    events = feed(demo, [{"blue": "c8", "red": "h8"}, {"blue": "c1", "red": "h8"}])
    moves = of_type(events, "move")
    assert [e["count"] for e in moves] == [1, 2, 3, 4]
    assert moves[2]["move"] == "blue down" and moves[1]["robot"] == moves[3]["robot"] == "red"
    assert verdicts(events) == []


# ---------------------------------------------------------------- ambiguity

OPEN4 = {"size": 4}


def test_two_different_routes_of_one_length_are_reported_as_an_assumption():
    p = pos(OPEN4, {"blue": "a1", "red": "c3"}, {"cell": "b2", "robot": "blue"})
    demo = Demonstration(p, bid=5)
    events = demo.observe({"blue": "d4", "red": "c3"}, at=1.0)
    moves = of_type(events, "move")
    assert [e["count"] for e in moves] == [1, 2]
    amb = of_type(events, "ambiguous")[0]
    assert {amb["assumed"], *amb["alternatives"]} == {"blue up, blue right",
                                                      "blue right, blue up"}
    assert amb["assumed"] == ", ".join(e["move"] for e in moves)
    assert all(e["assumed"] for e in moves)


def test_moves_under_one_hand_are_read_with_the_arrival_last():
    # Blue right (onto the target) and red left happen under one hand, in either order; the
    # helper move is read as coming first, so both are counted and the arrival ends the route.
    # An arrival beside another robot's move rests on readings a misread robot standing
    # still would give as well (companion.verify_claims): it is held until a look after a
    # hand sees both robots there again.
    p = pos(OPEN4, {"blue": "a4", "red": "c1"}, {"cell": "d4", "robot": "any"},
            rules={"ricochet": "off"})
    demo = Demonstration(p, bid=2)
    look = {"blue": "d4", "red": "a1"}
    events = demo.observe(look, at=1.0)
    assert of_type(events, "move") == [] and verdicts(events) == []
    assert set(of_type(events, "doubt")[0]["robots"]) == {"blue", "red"}
    events = demo.observe(None, at=2.0) + demo.observe(look, at=3.0)
    assert [e["move"] for e in of_type(events, "move")] == ["red left", "blue right"]
    assert verdicts(events) == ["success"]
    assert events[-1]["count"] == 2 and events[-1]["robot"] == "blue"


def test_an_arrival_beside_another_move_ends_unsure_when_no_second_look_comes():
    # The same look, and the players say done before any other look: the camera cannot
    # tell an arrival from a misread robot standing still, so the players judge.
    p = pos(OPEN4, {"blue": "a4", "red": "c1"}, {"cell": "d4", "robot": "any"},
            rules={"ricochet": "off"})
    demo = Demonstration(p, bid=2)
    demo.observe({"blue": "d4", "red": "a1"}, at=1.0)
    assert verdicts(demo.done(at=2.0)) == ["unsure"]


def test_a_move_after_the_arrival_does_not_undo_the_success():
    # Red up only fits after blue has passed c4: blue arrived first, and that was a success
    # (once a look after a hand shows both there again: the arrival came beside red's move).
    p = pos(OPEN4, {"blue": "a4", "red": "c1"}, {"cell": "d4", "robot": "any"},
            rules={"ricochet": "off"})
    demo = Demonstration(p, bid=2)
    events = demo.observe({"blue": "d4", "red": "c4"}, at=1.0)
    assert verdicts(events) == []
    events = demo.observe(None, at=2.0) + demo.observe({"blue": "d4", "red": "c4"}, at=3.0)
    assert [e["move"] for e in of_type(events, "move")] == ["blue right"]
    assert verdicts(events) == ["success"] and events[-1]["count"] == 1


# ---------------------------------------------------------------- robots off the board


def test_lifted_robot_pauses_the_count_until_it_is_back():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=4)
    events = feed(demo, [seen[0]])
    lifted = {k: v for k, v in seen[0].items() if k != "green"}
    off = demo.observe(lifted, at=5.0)
    assert [e["type"] for e in off] == ["robot_missing"]
    assert off[0]["put_back"] == {"green": "a13"}
    assert demo.observe(lifted, at=6.0) == []  # said once
    back = demo.observe(seen[0], at=7.0)
    assert [e["type"] for e in back] == ["robots_back"]
    events = feed(demo, seen[1:], t0=8.0)
    assert verdicts(events) == ["success"]
    assert events[-1]["count"] == 4


def test_lifted_robot_put_back_elsewhere_is_asked_to_go_back():
    p = red_square()
    demo = Demonstration(p, bid=4)
    start = looks(p, "red right")[0]
    demo.observe(start, at=1.0)
    demo.observe({k: v for k, v in start.items() if k != "blue"}, at=2.0)
    wrong = demo.observe({**start, "blue": "h13"}, at=3.0)
    assert of_type(wrong, "misplaced")[0]["robots"] == {"blue": {"at": "h13", "to": "l14"}}
    assert verdicts(wrong) == []
    events = feed(demo, [start, *looks(p, RED_SQUARE_ROUTE)[1:]], t0=4.0)
    assert verdicts(events) == ["success"]


def test_two_robots_seen_on_one_cell_wait_as_knocked():
    p = red_square()
    demo = Demonstration(p, bid=4)
    first = looks(p, "red right")[0]
    demo.observe(first, at=1.0)
    events = demo.observe({**first, "blue": first["yellow"]}, at=2.0)
    merged = of_type(events, "robots_merged")[0]
    assert sorted(merged["robots"]) == ["blue", "yellow"]
    assert merged["put_back"] == {"blue": "l14", "yellow": "c15"}
    assert verdicts(events) == [] and demo.count == 1
    assert [e["type"] for e in demo.observe(first, at=3.0)] == ["robots_back"]
    assert demo.count == 1


# ---------------------------------------------------------------- failure and restoring


def test_give_up_lists_the_robots_to_put_back():
    p = red_square()
    demo = Demonstration(p, bid=4)
    feed(demo, looks(p, "red right, yellow left"))
    events = demo.give_up(at=9.0)
    assert verdicts(events) == ["gave_up"]
    assert of_type(events, "restore")[0]["robots"] == {
        "red": {"at": "n2", "to": "c2"}, "yellow": {"at": "a15", "to": "c15"}}


def test_next_bidder_starts_only_once_the_board_is_restored():
    p = red_square()
    rnd = RoundVerifier(p, solution={"type": "solution", "available": True, "solved": True,
                                     "length": 4, "cost": 4, "route": RED_SQUARE_ROUTE})
    assert rnd.ready
    rnd.begin(3, "Ada", at=0.0)
    assert not rnd.ready
    seen = looks(p, "red right, yellow left")
    events = feed(rnd, seen)
    with pytest.raises(NotRestoredError):
        rnd.begin(4, "Bob", at=2.5)
    # The player slid too far... and gave up.
    events = rnd.give_up(at=3.0)
    assert verdicts(events) == ["gave_up"]
    with pytest.raises(NotRestoredError):
        rnd.begin(4, "Bob", at=3.5)
    half = {**seen[1], "red": "c2"}  # red back, yellow not yet
    events = rnd.observe(half, at=4.0)
    assert of_type(events, "restore")[0]["robots"] == {"yellow": {"at": "a15", "to": "c15"}}
    assert not rnd.ready
    events = rnd.observe(None, at=4.5) + rnd.observe(
        {r: p.board.name(c) for r, c in p.robots.items()}, at=5.0)
    assert [e["type"] for e in events] == ["restored"]
    assert rnd.ready
    started = rnd.begin(4, "Bob", at=6.0)
    assert started[0]["type"] == "demonstration" and started[0]["player"] == "Bob"
    events = feed(rnd, looks(p, RED_SQUARE_ROUTE), t0=7.0)
    assert verdicts(events) == ["success"]
    solution = events[-1]
    assert solution["type"] == "solution" and solution["optimal"] is True
    assert not rnd.ready


def test_illegal_move_asks_for_the_board_as_seen_to_be_restored():
    p = red_square()
    demo = Demonstration(p, bid=4)
    events = demo.observe({**looks(p, "red right")[0], "red": "f2"}, at=1.0)
    assert verdicts(events) == ["illegal"]
    assert of_type(events, "restore")[0]["robots"] == {"red": {"at": "f2", "to": "c2"}}
    assert [e["type"] for e in demo.observe(
        {r: p.board.name(c) for r, c in p.robots.items()}, at=2.0)] == ["restored"]
    assert demo.restored


def test_round_without_a_success_ends_with_the_solution():
    p = red_square()
    rnd = RoundVerifier(p, solve=lambda position: solution_event(
        position, parse_route(RED_SQUARE_ROUTE)))
    rnd.begin(2, at=0.0)
    rnd.give_up(at=1.0)
    end = rnd.end(at=2.0)
    assert end[0]["type"] == "solution" and end[0]["length"] == 4
    assert end[0]["route"] == RED_SQUARE_ROUTE
    with pytest.raises(NotRestoredError):
        rnd.begin(3, at=3.0)


def test_demonstration_refuses_a_bid_below_one():
    with pytest.raises(ValueError, match="bid"):
        Demonstration(red_square(), bid=0)


# ---------------------------------------------------------------- the search against the rules


def _bfs_length(p: Position, goal: tuple, limit: int) -> int | None:
    names = tuple(p.robots)
    start = tuple(p.robots[n] for n in names)
    if start == goal:
        return 0
    frontier, seen = {start}, {start}
    for depth in range(1, limit + 1):
        nxt = set()
        for s in frontier:
            q = p.with_robots(dict(zip(names, s, strict=True)))
            for m, sl in q.legal_moves():
                i = names.index(m.robot)
                n = (*s[:i], sl.end, *s[i + 1:])
                if n == goal:
                    return depth
                if n not in seen:
                    seen.add(n)
                    nxt.add(n)
        frontier = nxt
    return None


@pytest.mark.parametrize("seed", range(12))
def test_move_finder_agrees_with_the_rules_on_real_boards(seed):
    rnd = random.Random(seed)
    tiles = [rnd.choice([t for t in tile_names() if t[0] == q]) for q in "1234"]
    rnd.shuffle(tiles)
    board = Board.from_tiles(tiles)
    free = [c for c in board if c not in board.blocked and board.diagonal_at(c) is None]
    p = Position(board, dict(zip(("red", "green", "blue", "yellow"),
                                 rnd.sample(free, 4), strict=True)), None)
    names = tuple(p.robots)
    finder = MoveFinder(board, p.rules, names)
    start = tuple(p.robots[n] for n in names)
    assert sorted((s.move.text(), s.end) for s in finder.successors(start)) == sorted(
        (m.text(), s.end) for m, s in p.legal_moves())
    q = p
    for _ in range(rnd.randint(1, 3)):
        q = q.push(rnd.choice(list(q.legal_moves()))[0])
    goal = tuple(q.robots[n] for n in names)
    found = finder.explain(start, goal, 3)
    assert found.cost == _bfs_length(p, goal, 3)
    for steps in found.explanations:
        assert validate_route(p, [s.move for s in steps]).robots == dict(
            zip(names, goal, strict=True))


def test_transparent_robot_pays_for_each_wall_it_passes():
    p = pos({"size": 8, "walls": [["c3", "up"]]}, {"transparent": "c1", "red": "h8"},
            {"cell": "a6", "robot": "transparent"}, rules={"transparent_robot": True})
    demo = Demonstration(p, bid=4)
    events = demo.observe({"transparent": "c8", "red": "h8"}, at=1.0)
    move = of_type(events, "move")[0]
    assert move["move"] == "transparent up +wall"
    assert move["move_cost"] == 2 and move["cost"] == 2 and move["count"] == 1


# ---------------------------------------------------------------- the command line


def _write_log(tmp_path, observations) -> str:
    path = tmp_path / "demo.jsonl"
    path.write_text("".join(json.dumps({"at": float(k), "robots": o}) + "\n"
                            for k, o in enumerate(observations)))
    return str(path)


def _write_position(tmp_path, p: Position) -> str:
    path = tmp_path / "start.json"
    path.write_text(p.to_json())
    return str(path)


def test_cli_replays_a_recorded_observation_log(tmp_path, capsys):
    p = red_square()
    log = _write_log(tmp_path, [None, *looks(p, RED_SQUARE_ROUTE)])
    status = main(["verify", log, "--start", _write_position(tmp_path, p), "--bid", "4",
                   "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert out["verdict"] == "success"
    assert [m["move"] for m in out["moves"]] == RED_SQUARE_ROUTE.split(", ")


def test_cli_says_incomplete_when_the_recording_stops_early(tmp_path, capsys):
    p = red_square()
    log = _write_log(tmp_path, looks(p, "red right, red up"))
    status = main(["verify", log, "--start", _write_position(tmp_path, p), "--bid", "4"])
    text = capsys.readouterr().out
    assert status == 1
    assert "1. red right" in text and "incomplete" in text


def test_cli_rejects_a_bad_bid_and_a_missing_recording(tmp_path, capsys):
    p = red_square()
    start = _write_position(tmp_path, p)
    assert main(["verify", str(tmp_path / "nothing"), "--start", start, "--bid", "4"]) == 2
    assert "nothing" in capsys.readouterr().err
    log = _write_log(tmp_path, [])
    assert main(["verify", log, "--start", start, "--bid", "0"]) == 2
    assert "--bid" in capsys.readouterr().err



def test_round_ends_with_the_solvers_optimal_route():
    p = red_square()
    rnd = RoundVerifier(p)  # the real solver
    rnd.begin(6, "Ada", at=0.0)
    events = feed(rnd, looks(p, "yellow left, " + RED_SQUARE_ROUTE))
    assert verdicts(events) == ["success"]
    solution = events[-1]
    assert solution["type"] == "solution" and solution["solved"]
    assert solution["length"] == 4 and solution["winner_cost"] == 5
    assert solution["optimal"] is False
    route = parse_route(solution["route"])
    assert validate_route(p, route).reached


def test_a_change_needing_more_moves_than_a_look_can_hide_is_illegal():
    p = red_square()
    seen = looks(p, RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=10, max_gap=3)
    events = demo.observe(seen[-1], at=1.0)  # four moves of red in one look
    assert verdicts(events) == ["illegal"]
    assert "up to 3 moves" in of_type(events, "illegal")[0]["reason"]
    assert of_type(events, "move") == []
    wide = Demonstration(p, bid=10, max_gap=4).observe(seen[-1], at=1.0)
    assert verdicts(wide) == ["success"] and wide[-1]["count"] == 4


def test_several_robots_changed_beyond_what_a_look_can_hide_are_asked_about():
    # yellow and green moved, and red seen where four more moves would take it: no hand
    # makes six moves between two looks, and without red the look is legal, so red's
    # reading is doubted (never "illegal" on it) and the two moves are counted
    p = red_square()
    seen = looks(p, "yellow left, green up, " + RED_SQUARE_ROUTE)
    demo = Demonstration(p, bid=10, max_gap=4)
    events = demo.observe(seen[-1], at=1.0)
    assert verdicts(events) == []
    assert list(of_type(events, "doubt")[0]["robots"]) == ["red"]
    assert [e["move"] for e in of_type(events, "move")] == ["yellow left", "green up"]


def test_with_two_robots_changed_the_one_that_broke_a_rule_is_named_and_asked_about():
    # yellow's move is legal and red's change alone is not: red may as well be misread as
    # moved, so the count goes on with red where it stood and the page asks about it
    p = red_square()
    first = looks(p, "yellow left")[0]
    up = p.push(Move.parse("yellow left")).slide(Move.parse("red right"))
    short = p.board.name(up.path[-2])
    demo = Demonstration(p, bid=6)
    events = demo.observe({**first, "red": short}, at=1.0)
    assert verdicts(events) == []
    (doubt,) = of_type(events, "doubt")
    assert doubt["reason"].startswith(f"red stopped on {short}")
    assert doubt["question"] == f"red seen on {short} — is that right?"
    assert doubt["robots"] == {"red": {"seen": short, "believed": "c2"}}
    assert [e["move"] for e in of_type(events, "move")] == ["yellow left"]
    # … and when it stays so, the players are asked to judge: never "illegal"
    assert verdicts(demo.done(at=2.0)) == ["unsure"]


def test_stopping_on_a_barrier_is_illegal_in_words():
    board = {"size": 8, "diagonals": [{"cell": "c5", "color": "red", "orientation": "/"}]}
    p = pos(board, {"blue": "c1", "green": "h8"}, {"cell": "h5", "robot": "blue"})
    events = Demonstration(p, bid=3).observe({"blue": "c5", "green": "h8"}, at=1.0)
    reason = of_type(events, "illegal")[0]["reason"]
    assert "barrier" in reason and "c5" in reason


def test_a_barrier_bounce_is_one_move_and_a_ricochet():
    board = {"size": 8, "diagonals": [{"cell": "c5", "color": "red", "orientation": "/"}]}
    p = pos(board, {"blue": "c1", "green": "h8"}, {"cell": "h5", "robot": "blue"})
    events = Demonstration(p, bid=1).observe({"blue": "h5", "green": "h8"}, at=1.0)
    assert [e["move"] for e in of_type(events, "move")] == ["blue up"]
    assert verdicts(events) == ["success"]


def test_nothing_is_judged_after_a_success():
    p = red_square()
    demo = Demonstration(p, bid=4)
    feed(demo, looks(p, RED_SQUARE_ROUTE))
    assert demo.observe({r: p.board.name(c) for r, c in p.robots.items()}, at=20.0) == []
    assert demo.done(at=21.0) == [] and demo.give_up(at=22.0) == []
    assert demo.verdict["verdict"] == "success"


def test_exactly_the_bid_is_needed_when_the_rules_say_so():
    p = pos(OPEN4, {"blue": "a1", "red": "c3"}, {"cell": "d4", "robot": "blue"},
            rules={"success": "exactly"})
    demo = Demonstration(p, bid=4)
    events = demo.observe({"blue": "d4", "red": "c3"}, at=1.0)
    assert verdicts(events) == []
    assert "exactly 4" in of_type(events, "rule_unmet")[0]["reason"]


def test_a_robot_nudged_after_restoring_must_go_back_before_the_next_bidder():
    p = red_square()
    start = {r: p.board.name(c) for r, c in p.robots.items()}
    rnd = RoundVerifier(p, solve=None)
    rnd.begin(3, "Ada", at=0.0)
    feed(rnd, looks(p, "red right"))
    rnd.give_up(at=2.0)
    assert [e["type"] for e in rnd.observe(start, at=3.0)] == ["restored"]
    nudged = rnd.observe({**start, "green": "a12"}, at=4.0)
    assert of_type(nudged, "restore")[0]["robots"] == {"green": {"at": "a12", "to": "a13"}}
    with pytest.raises(NotRestoredError):
        rnd.begin(4, "Bob", at=4.5)
    assert [e["type"] for e in rnd.observe(start, at=5.0)] == ["restored"]
    assert rnd.begin(4, "Bob", at=6.0)[0]["type"] == "demonstration"


def test_the_module_example_runs():
    import doctest

    import companion.verify

    assert doctest.testmod(companion.verify).failed == 0


@pytest.mark.parametrize("seed", range(8))
def test_random_legal_routes_are_counted_move_by_move_on_real_boards(seed):
    rnd = random.Random(100 + seed)
    tiles = [rnd.choice([t for t in tile_names() if t[0] == q]) for q in "1234"]
    rnd.shuffle(tiles)
    board = Board.from_tiles(tiles)
    free = [c for c in board if c not in board.blocked and board.diagonal_at(c) is None
            and board.target_at(c) is None]
    target = rnd.choice([t for t in board.targets if not t.is_vortex])
    p = Position(board, dict(zip(("red", "green", "blue", "yellow"), rnd.sample(free, 4),
                                 strict=True)),
                 Goal(target.cell, target.color, target.color, target.shape))
    demo = Demonstration(p, bid=20)
    q = p
    for k in range(1, 9):
        moves = [m for m, s in q.legal_moves() if s.end != target.cell]
        q = q.push(rnd.choice(moves))
        events = demo.observe(dict(q.robots), at=float(k))
        assert verdicts(events) == []
        assert [e["count"] for e in of_type(events, "move")] == [k]
        assert demo.robots == dict(q.robots)
    assert validate_route(p, demo.route).robots == dict(q.robots)
