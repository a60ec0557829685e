"""The rules: slides, barriers, openings, the transparent robot, ricochet, reversal, presets,
positions and route verdicts. One test per rule point of RULES.md."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.board import DIRECTIONS, RIGHT, UP, Board
from companion.rules import (
    PRESETS,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Position,
    PositionError,
    Rules,
    format_route,
    parse_route,
    slide,
    validate_route,
)

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "photos"


def pos(board: dict, robots: dict, target: dict | None = None, rules=None) -> Position:
    data = {"board": board, "robots": robots}
    if target is not None:
        data["target"] = target
    if rules is not None:
        data["rules"] = rules
    return Position.from_dict(data)


def end_of(p: Position, text: str) -> str:
    return p.board.name(p.push(Move.parse(text)).robots[text.split()[0]])


def verdict(p: Position, route: str, bid: int | None = None):
    return validate_route(p, parse_route(route), bid)


OPEN8 = {"size": 8}


# ---------------------------------------------------------------- slides


def test_a_robot_slides_to_the_board_edge():
    p = pos(OPEN8, {"red": "c3"})
    assert end_of(p, "red up") == "c8"
    assert end_of(p, "red left") == "a3"
    assert end_of(p, "red right") == "h3"
    assert end_of(p, "red down") == "c1"


def test_a_wall_stops_a_robot_from_either_side():
    p = pos({"size": 8, "walls": [["c5", "up"]]}, {"red": "c2", "blue": "c8"})
    assert end_of(p, "red up") == "c5"
    assert end_of(p, "blue down") == "c6"


def test_another_robot_stops_a_robot_next_to_it():
    p = pos(OPEN8, {"red": "a4", "green": "f4"})
    assert end_of(p, "red right") == "e4"


def test_the_centre_block_stops_robots_and_cannot_be_entered():
    p = pos({"size": 8, "blocked": ["d5", "e5", "d6", "e6"]}, {"red": "d1", "green": "a6"})
    assert end_of(p, "red up") == "d4"
    assert end_of(p, "green right") == "c6"
    real = pos({"tiles": ["1A", "2A", "3A", "4A"]}, {"red": "h1", "green": "g8"})
    for _, s in real.legal_moves():
        assert all(c not in real.board.blocked for c in s.path)


def test_a_slide_that_does_not_move_is_no_move():
    p = pos(OPEN8, {"red": "a1"})
    with pytest.raises(IllegalMoveError) as e:
        p.push(Move.parse("red left"))
    assert e.value.rule == "no_move"
    r = verdict(pos(OPEN8, {"red": "a1"}, {"cell": "a8", "robot": "red"}), "red left, red up")
    assert not r.legal and r.rule == "no_move" and r.failed_move == 0
    assert "move 1 (red left)" in r.reason


def test_every_slide_counts_one_however_far():
    p = pos(OPEN8, {"red": "a1"}, {"cell": "h8", "robot": "red"})
    r = verdict(p, "red up, red right")
    assert r.reached and r.moves == 2 and r.cost == 2


# ---------------------------------------------------------------- diagonal barriers

DIAG = {"size": 8, "diagonals": [{"cell": "d4", "color": "blue", "orientation": "/"}]}


def test_blue_robot_passes_blue_barrier_straight():
    p = pos(DIAG, {"blue": "d1"})
    assert end_of(p, "blue up") == "d8"


def test_other_robot_is_deflected_by_a_barrier_and_keeps_sliding():
    p = pos(DIAG, {"red": "d1"})
    s = p.slide(Move.parse("red up"))
    assert p.board.name(s.end) == "h4" and s.deflected and s.final_direction == RIGHT
    assert s.cost == 1


@pytest.mark.parametrize("start,move,end", [
    ("a4", "red right", "d8"),  # "/" turns right-moving robots up
    ("d8", "red down", "a4"),   # and down-moving robots left
    ("h4", "red left", "d1"),   # and left-moving robots down
])
def test_slash_barrier_turns_like_a_mirror(start, move, end):
    assert end_of(pos(DIAG, {"red": start}), move) == end


def test_backslash_barrier_turns_the_other_way():
    board = {"size": 8, "diagonals": [{"cell": "d4", "color": "blue", "orientation": "\\"}]}
    assert end_of(pos(board, {"red": "d1"}), "red up") == "a4"
    assert end_of(pos(board, {"red": "a4"}), "red right") == "d1"


def test_a_robot_may_not_stop_on_a_barrier_by_default():
    # a wall right after the turn would leave the robot on the barrier cell
    board = {**DIAG, "walls": [["d4", "right"]]}
    p = pos(board, {"red": "d1"}, {"cell": "h8", "robot": "red"})
    with pytest.raises(IllegalMoveError) as e:
        p.push(Move.parse("red up"))
    assert e.value.rule == "barrier_stop" and "d4" in str(e.value)


def test_house_rule_lets_a_robot_stop_on_a_barrier():
    board = {**DIAG, "walls": [["d4", "right"]]}
    p = pos(board, {"red": "d1"}, rules={"barrier_stop": "allowed"})
    assert end_of(p, "red up") == "d4"


def test_barrier_next_to_a_robot_is_a_stop_on_the_barrier():
    p = pos(DIAG, {"red": "d1", "green": "e4"})
    assert p.slide(Move.parse("red up")).rule == "barrier_stop"


def test_a_robot_may_not_start_on_a_barrier_cell():
    with pytest.raises(PositionError, match="robots.red: d4 is a diagonal barrier cell"):
        pos(DIAG, {"red": "d4"})


# ---------------------------------------------------------------- openings

OPENING = {"size": 8, "openings": [["a3", "left"]]}


def test_an_opening_wraps_a_robot_to_the_far_end_of_the_row_still_moving():
    p = pos({**OPENING, "walls": [["d3", "left"]]}, {"red": "b3"})
    s = p.slide(Move.parse("red left"))
    assert p.board.name(s.end) == "d3" and s.cost == 1


def test_an_opening_with_the_re_entry_cell_taken_stops_at_the_exit_side():
    p = pos(OPENING, {"red": "c3", "green": "h3"})
    assert end_of(p, "red left") == "a3"


def test_a_slide_through_an_opening_that_would_loop_for_ever_is_illegal():
    board = {"size": 4, "openings": [["a2", "left"], ["d2", "right"]]}
    p = pos(board, {"red": "b2"})
    s = p.slide(Move.parse("red left"))
    assert s.rule == "endless_loop"


def test_openings_are_off_unless_the_board_defines_them():
    p = pos({"tiles": ["1A", "2A", "3A", "4A"]}, {"red": "a3"})
    assert not p.board.openings
    assert p.slide(Move.parse("red left")).rule == "no_move"


# ---------------------------------------------------------------- the transparent robot

TRANSP = {"size": 8, "walls": [["a3", "up"], ["a5", "up"], ["a7", "up"]]}


def test_transparent_robot_stops_at_a_wall_when_it_chooses_to():
    p = pos(TRANSP, {"transparent": "a1"}, rules={"transparent_robot": True})
    s = p.slide(Move.parse("transparent up"))
    assert p.board.name(s.end) == "a3" and s.cost == 1


def test_transparent_robot_passing_two_walls_in_one_move_costs_three():
    p = pos(TRANSP, {"transparent": "a1"}, {"cell": "a7", "robot": "transparent"},
            rules={"transparent_robot": True, "ricochet": "off"})
    s = p.slide(Move.parse("transparent up +wall +wall"))
    assert p.board.name(s.end) == "a7" and s.cost == 3
    r = verdict(p, "transparent up +wall +wall", bid=3)
    assert r.reached and r.moves == 1 and r.cost == 3 and r.meets_bid
    assert not verdict(p, "transparent up +wall +wall", bid=2).meets_bid


def test_transparent_robot_cannot_pass_the_board_edge_or_the_centre():
    edge = pos(TRANSP, {"transparent": "a6"})
    s = edge.slide(Move.parse("transparent up +wall +wall"))
    assert s.rule == "unused_pass" and edge.board.name(s.end) == "a8"
    centre = pos({"size": 8, "blocked": ["d5"]}, {"transparent": "d1"})
    s = centre.slide(Move.parse("transparent up +wall"))
    assert s.rule == "unused_pass" and centre.board.name(s.end) == "d4"
    assert all(sl.end != centre.board.cell("d5") for _, sl in centre.legal_moves())


def test_transparent_robot_cannot_pass_a_robot():
    p = pos(TRANSP, {"transparent": "a1", "red": "a4"})
    assert p.slide(Move.parse("transparent up +wall")).rule == "unused_pass"


def test_transparent_robot_chooses_bounce_or_pass_at_a_barrier():
    p = pos(DIAG, {"transparent": "d1"})
    bounce = p.slide(Move.parse("transparent up"))
    through = p.slide(Move.parse("transparent up +barrier"))
    assert p.board.name(bounce.end) == "h4" and bounce.cost == 1
    assert p.board.name(through.end) == "d8" and through.cost == 2


def test_transparent_robot_can_bounce_at_one_barrier_and_pass_the_next():
    board = {"size": 8, "diagonals": [
        {"cell": "d2", "color": "red", "orientation": "/"},
        {"cell": "f2", "color": "red", "orientation": "/"}]}
    p = pos(board, {"transparent": "d1"})
    s = p.slide(Move.parse("transparent up bounce +barrier"))
    assert p.board.name(s.end) == "h2" and s.cost == 2
    options = {m.text() for m, _ in p.legal_moves() if m.direction == UP}
    assert options == {"transparent up", "transparent up +barrier",
                       "transparent up bounce +barrier"}


def test_other_robots_stop_at_the_transparent_robot():
    p = pos(OPEN8, {"transparent": "a5", "red": "a1"})
    assert end_of(p, "red up") == "a4"


def test_transparent_robot_legal_moves_list_every_wall_choice():
    p = pos(TRANSP, {"transparent": "a1"})
    ups = sorted(m.text() for m, _ in p.legal_moves() if m.direction == UP)
    assert ups == ["transparent up", "transparent up +wall", "transparent up +wall +wall",
                   "transparent up +wall +wall +wall"]


def test_transparent_robot_may_take_the_vortex():
    p = pos({"size": 8, "targets": [{"cell": "a8", "color": "any", "shape": "vortex"}]},
            {"transparent": "a1", "red": "h1"}, {"shape": "vortex"}, rules={"ricochet": "off"})
    assert verdict(p, "transparent up").reached


# ---------------------------------------------------------------- must ricochet

STRAIGHT = {"size": 8}


def test_strict_ricochet_rejects_a_straight_arrival():
    p = pos(STRAIGHT, {"red": "a1"}, {"cell": "a8", "robot": "red"})
    r = verdict(p, "red up")
    assert r.legal and not r.reached and r.rule == "ricochet"


def test_strict_ricochet_accepts_a_turn_with_helper_moves_between():
    p = pos(STRAIGHT, {"red": "a1", "green": "d5"}, {"cell": "a8", "robot": "red"})
    r = verdict(p, "red right, green left, red up, red left")
    assert r.reached and r.moves == 4, r.reason
    q = pos(STRAIGHT, {"red": "a1"}, {"cell": "h1", "robot": "red"})
    assert verdict(q, "red up, red right, red down").reached


def test_a_180_degree_reversal_is_not_a_ricochet():
    p = pos(STRAIGHT, {"red": "a4"}, {"cell": "a1", "robot": "red"})
    r = verdict(p, "red up, red down")
    assert not r.reached and r.rule == "ricochet"


def test_a_diagonal_deflection_counts_as_a_ricochet_by_default():
    board = {"size": 8, "diagonals": [{"cell": "d4", "color": "blue", "orientation": "/"}]}
    p = pos(board, {"red": "d1"}, {"cell": "h4", "robot": "red"})
    assert verdict(p, "red up").reached
    q = replace(p, rules=Rules.from_spec({"diagonal_counts_as_ricochet": False}))
    assert verdict(q, "red up").rule == "ricochet"


def test_lenient_ricochet_only_forbids_the_one_straight_slide():
    p = pos(STRAIGHT, {"red": "a1", "green": "h3"}, {"cell": "a8", "robot": "red"},
            rules={"ricochet": "lenient"})
    assert verdict(p, "red up").rule == "ricochet"
    r = verdict(p, "green up, red up")
    assert r.reached, r.reason
    strict = replace(p, rules=Rules.from_spec({"ricochet": "strict"}))
    assert verdict(strict, "green up, red up").rule == "ricochet"


def test_ricochet_off_accepts_a_straight_slide():
    p = pos(STRAIGHT, {"red": "a1"}, {"cell": "a8", "robot": "red"}, rules={"ricochet": "off"})
    assert verdict(p, "red up").reached


def test_a_robot_already_on_the_target_must_leave_and_come_back():
    p = pos(STRAIGHT, {"red": "a8"}, {"cell": "a8", "robot": "red"}, rules={"ricochet": "off"})
    r = verdict(p, "")
    assert not r.reached and r.rule == "not_reached"
    assert verdict(p, "red down, red up").reached


# ---------------------------------------------------------------- reversal


def test_immediate_reversal_is_allowed_by_default():
    p = pos(STRAIGHT, {"red": "a4"}, {"cell": "h8", "robot": "red"})
    assert verdict(p, "red up, red down, red up, red right").reached


def test_riogrande_forbids_an_immediate_reversal():
    p = pos(STRAIGHT, {"red": "a4", "green": "h1"}, {"cell": "h8", "robot": "red"},
            rules="riogrande-2003")
    r = verdict(p, "red up, red down")
    assert not r.legal and r.rule == "immediate_reversal" and r.failed_move == 1


def test_riogrande_allows_going_back_after_another_robot_moved():
    p = pos(STRAIGHT, {"red": "a4", "green": "h1"}, {"cell": "h1", "robot": "red"},
            rules="riogrande-2003")
    r = verdict(p, "red up, green up, red down, red right")
    assert r.legal and r.reached, r.reason


# ---------------------------------------------------------------- the vortex and robots


VORTEX8 = {"size": 8, "targets": [{"cell": "e5", "color": "any", "shape": "vortex"}],
           "walls": [["e5", "up"], ["e5", "right"], ["a5", "up"]]}
VORTEX = {"shape": "vortex"}


@pytest.mark.parametrize("robot", ["red", "green", "black", "silver"])
def test_any_robot_may_take_the_vortex_the_fifth_included(robot):
    other = "yellow"
    p = pos(VORTEX8, {robot: "a1", other: "h1"}, VORTEX)
    r = verdict(p, f"{robot} up, {robot} right")
    assert r.reached and r.moves == 2, r.reason


def test_the_vortex_needs_a_ricochet_like_any_target():
    p = pos(VORTEX8, {"black": "a5", "green": "h1"}, VORTEX)
    assert verdict(p, "black right").rule == "ricochet"


def test_a_robot_standing_on_the_vortex_does_not_claim_it_while_others_move():
    p = pos(VORTEX8, {"red": "e5", "green": "a1"}, VORTEX)
    r = verdict(p, "green up, green right")
    assert not r.reached and p.board.name(r.robots["green"]) == "d5"


def test_a_coloured_target_is_only_for_its_robot():
    board = {"size": 8, "targets": [{"cell": "h1", "color": "red", "shape": "circle"}]}
    p = pos(board, {"red": "a8", "blue": "c3"}, {"color": "red", "shape": "circle"})
    r = verdict(p, "blue down, blue right")
    assert not r.reached and "red" in r.reason
    assert verdict(p, "red down, red right").reached


def test_black_and_silver_are_one_fifth_robot():
    with pytest.raises(PositionError, match="same 5th robot"):
        pos(OPEN8, {"black": "a1", "silver": "b1"})


def test_six_robots_with_the_transparent_one_are_a_valid_position():
    p = pos({"tiles": ["1A", "2A", "3A", "4A"]}, {
        "red": "a1", "green": "b1", "blue": "c1", "yellow": "d1", "silver": "e1",
        "transparent": "f1"}, {"color": "red", "shape": "circle"})
    assert len(p.robots) == 6 and len(list(p.legal_moves())) > 6


# ---------------------------------------------------------------- presets and options


def test_presets_differ_where_the_editions_differ():
    a, r, c, m = (PRESETS[n] for n in ("abacus-2013", "riogrande-2003", "classic-1999",
                                       "micro-robots"))
    assert a.tie == "bid_order" and r.tie == c.tie == "fewer_chips_then_bid_order"
    assert a.immediate_reversal == "allowed" and r.immediate_reversal == "forbidden"
    assert a.fifth_robot == "black" and r.fifth_robot == "silver" and c.fifth_robot == "none"
    assert a.solo and not r.solo
    assert m.success == "exactly" and a.success == "at_most"
    assert a.ricochet == "strict" and a.diagonal_counts_as_ricochet
    assert a.barrier_stop == "illegal" and a.timer_seconds == 60 and a.no_bid_seconds == 240


def test_game_end_chip_counts_follow_the_number_of_players():
    rules = Rules()
    assert [rules.chips_needed(n) for n in (2, 3, 4, 5, 6)] == [8, 6, 5, 17, 17]
    assert Rules.from_spec({"chips_to_win": 3}).chips_needed(2) == 3


def test_micro_robots_success_is_exactly_the_bid():
    p = pos(OPEN8, {"red": "a1"}, {"cell": "h8", "robot": "red"}, rules="micro-robots")
    assert verdict(p, "red up, red right", bid=2).meets_bid
    assert not verdict(p, "red up, red right", bid=3).meets_bid
    q = pos(OPEN8, {"red": "a1"}, {"cell": "h8", "robot": "red"})
    assert verdict(q, "red up, red right", bid=3).meets_bid


@pytest.mark.parametrize("spec,message", [
    ("fancy-2030", "unknown preset 'fancy-2030'"),
    ({"ricochet": "sometimes"}, "rules.ricochet"),
    ({"rebound": True}, "rules.rebound: unknown rule option"),
    ({"timer_seconds": -5}, "rules.timer_seconds"),
    ({"chips_to_win": 40}, "rules.chips_to_win"),
])
def test_bad_rule_options_are_named(spec, message):
    with pytest.raises(PositionError, match=message):
        Rules.from_spec(spec)


@pytest.mark.parametrize("spec", ["riogrande-2003", {"ricochet": "off"},
                                  {"preset": "classic-1999", "barrier_stop": "allowed"}])
def test_rule_specs_round_trip(spec):
    rules = Rules.from_spec(spec)
    assert Rules.from_spec(rules.to_spec()) == rules


# ---------------------------------------------------------------- moves and positions


@pytest.mark.parametrize("text", ["blue up", "red left", "silver down", "transparent right",
                                  "transparent up +wall +barrier",
                                  "transparent left bounce +barrier"])
def test_moves_round_trip_as_text(text):
    assert Move.parse(text).text() == text


@pytest.mark.parametrize("text,message", [
    ("blue", "say a robot and a direction"),
    ("pink up", "unknown robot 'pink'"),
    ("blue sideways", "unknown direction"),
    ("blue up +wall", "only the transparent robot"),
    ("transparent up +door", r"'\+door'"),
    ("transparent up bounce", "final 'bounce'"),
])
def test_bad_moves_say_what_is_wrong(text, message):
    with pytest.raises(InvalidMoveError, match=message):
        Move.parse(text)


def test_routes_parse_and_format():
    route = parse_route("blue up, red left; green down")
    assert format_route(route) == "blue up, red left, green down"


def test_the_published_25_mover_position_round_trips_exactly():
    data = {"board": {"tiles": ["4B", "3B", "2B", "1A"]},
            "robots": {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15"},
            "target": {"color": "blue", "shape": "triangle"}}
    p = Position.from_dict(data)
    assert p.to_dict() == data
    assert p.board.name(p.target.cell) == "j4"
    q = Position.from_dict({**data, "rules": {"ricochet": "off"}})
    assert Position.from_dict(q.to_dict()) == q


@pytest.mark.parametrize("data,message", [
    ({"board": {"tiles": ["4B", "3B", "2B", "1A"]}, "robots": {"red": "c2"}, "colour": "x"},
     "unknown key 'colour'"),
    ({"board": {"tiles": ["4B", "3B", "2B", "1A"]}, "robots": {"red": "z2"}}, "robots.red"),
    ({"board": {"tiles": ["4B", "3B", "2B", "9A"]}, "robots": {"red": "c2"}}, "unknown tile"),
    ({"board": {"tiles": ["4B", "3B", "2B", "1A"]}, "robots": {"red": "c2", "blue": "c2"}},
     "robots.blue: c2 is already taken by the red robot"),
    ({"board": {"tiles": ["4B", "3B", "2B", "1A"]}, "robots": {"red": "h8"}},
     "robots.red: h8 is in the centre block"),
    ({"board": {"tiles": ["4B", "3B", "2B", "1A"]}, "robots": {"pink": "c2"}},
     "robots.pink: unknown robot"),
    ({"board": {"size": 8}, "robots": {"red": "c2"}, "target": {"color": "red",
                                                                "shape": "circle"}},
     "target: the board has no a red circle|target: the board has no"),
    ({"board": {"size": 8}, "robots": {"red": "c2"}, "target": {"cell": "k2",
                                                                "robot": "red"}},
     "target.cell"),
    ({"board": {"size": 8}, "robots": {"red": "c2"}, "target": {"cell": "b2",
                                                                "robot": "blue"}},
     "target.robot: there is no blue robot"),
    ({"robots": {"red": "c2"}}, "board: missing"),
    ([1, 2], "position: a JSON object"),
])
def test_bad_positions_name_the_field(data, message):
    with pytest.raises(PositionError, match=message):
        Position.from_dict(data)


def test_a_position_file_that_is_not_json_says_so(tmp_path):
    f = tmp_path / "p.json"
    f.write_text("{nope")
    with pytest.raises(PositionError, match="not JSON"):
        Position.load(f)
    with pytest.raises(PositionError, match="no such file"):
        Position.load(tmp_path / "missing.json")


@pytest.mark.skipif(not (PHOTOS / "game-oblique-24moves.json").exists(),
                    reason="shared photos not present")
def test_the_photo_ground_truth_loads_as_a_position():
    p = Position.load(PHOTOS / "game-oblique-24moves.json")
    assert p.board.tiles == ("1A", "4B", "3B", "2B")
    assert {r: p.board.name(c) for r, c in p.robots.items()} == {
        "red": "o14", "green": "b14", "blue": "n5", "yellow": "p16"}
    assert p.target.robot == "blue" and p.target.shape == "triangle"


def test_position_json_text_round_trips():
    p = Position.from_dict({"board": {"size": 8, "diagonals": [
        {"cell": "d4", "color": "blue", "orientation": "/"}], "openings": [["a3", "left"]]},
        "robots": {"red": "a1", "transparent": "b2"}, "target": {"cell": "h8", "robot": "any"},
        "rules": {"transparent_robot": True}})
    again = Position.from_json(p.to_json())
    assert again == p and json.loads(again.to_json()) == json.loads(p.to_json())


# ---------------------------------------------------------------- properties


@st.composite
def random_boards(draw):
    size = draw(st.integers(3, 9))
    cells = [f"{'abcdefghi'[f]}{r + 1}" for r in range(size) for f in range(size)]
    walls = draw(st.lists(st.tuples(st.sampled_from(cells), st.sampled_from(
        ["up", "right", "down", "left"])), max_size=size * 2))
    blocked = draw(st.lists(st.sampled_from(cells), max_size=2, unique=True))
    free = [c for c in cells if c not in blocked]
    robots = draw(st.lists(st.sampled_from(free), min_size=1, max_size=min(4, len(free)),
                           unique=True))
    names = ["red", "green", "blue", "yellow"][: len(robots)]
    return Position.from_dict({
        "board": {"size": size, "walls": [list(w) for w in walls], "blocked": blocked},
        "robots": dict(zip(names, robots, strict=True))})


@settings(max_examples=200, deadline=None)
@given(random_boards())
def test_a_slide_never_crosses_a_wall_or_robot_and_ends_only_at_an_obstacle(p):
    b = p.board
    for robot, start in p.robots.items():
        others = p.occupied_by_others(robot)
        for d in DIRECTIONS:
            s = slide(b, others, start, robot, d, (), p.rules)
            for a, c in zip(s.path, s.path[1:], strict=False):
                assert not b.has_wall(a, d) and b.neighbour(a, d) == c
                assert c not in others and c not in b.blocked
            nxt = b.neighbour(s.end, d)
            assert b.has_wall(s.end, d) or nxt in others
            assert (s.rule == "no_move") == (s.end == start)


@settings(max_examples=100, deadline=None)
@given(random_boards(), st.data())
def test_moves_and_positions_round_trip(p, data):
    moves = list(p.legal_moves())
    if moves:
        m, _ = data.draw(st.sampled_from(moves))
        assert Move.parse(m.text()) == m
    assert Position.from_json(p.to_json()) == p


def test_legal_moves_never_include_a_slide_that_stays_put():
    p = pos(OPEN8, {"red": "a1", "green": "b1"})
    texts = {m.text() for m, _ in p.legal_moves()}
    assert "red left" not in texts and "red down" not in texts and "red right" not in texts
    assert texts == {"red up", "green up", "green right"}


def test_explicit_board_position_uses_board_names():
    b = Board.from_dict({"size": 5})
    assert b.name(24) == "e5"
