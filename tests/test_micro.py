"""Micro Robots: spaces, layouts and their validation, moves, exact-count routes, dice, the game."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.game import GameError
from companion.micro import (
    ALL_SPACES,
    COLORS,
    NUMBERS,
    ExactLengths,
    Layout,
    LayoutError,
    MicroGame,
    MicroGameError,
    MicroOptions,
    Space,
    SpaceError,
    check_demonstration,
    check_rows,
    exact_lengths,
    example_layout,
    parse_spaces,
    penalty_recipient,
    roll,
    roll_avoiding,
    roll_target,
    roll_via,
    route_of_length,
    shortest_route,
)

S = Space.parse
EXAMPLE = example_layout()


def grid_names(layout: Layout) -> list[list[str]]:
    return [[s.name for s in row] for row in layout.rows]


def pattern_layout() -> Layout:
    """Colour (r + c) mod 6, number (r + 2c) mod 6 + 1: every pair once, but no column has two
    spaces that share anything and each row pairs column c with c + 3 by number. So the only
    moves hop between those two: a graph of 18 separate edges."""
    return Layout(tuple(tuple(Space(COLORS[(r + c) % 6], (r + 2 * c) % 6 + 1)
                              for c in range(6)) for r in range(6)))


# ---------------------------------------------------------------- spaces


def test_a_space_reads_the_ways_players_write_it():
    assert S("pink1") == S("pink 1") == S("Pink-1") == S(" PINK 1 ") == S("1 pink") \
        == Space("pink", 1)
    assert S("white2").label == "white 2"
    assert str(S("white 2")) == "white2"


@pytest.mark.parametrize("text, words", [
    ("purple3", "'purple' is not a colour"),
    ("pink7", "number must be 1 to 6"),
    ("pink", "number must be 1 to 6"),
    ("3", "say a colour and a number"),
    ("pi1nk", "say a colour and a number"),
])
def test_a_bad_space_says_what_is_wrong(text, words):
    with pytest.raises(SpaceError, match=words):
        S(text)


def test_the_36_spaces_are_every_colour_with_every_number_once():
    assert len(ALL_SPACES) == len(set(ALL_SPACES)) == 36
    assert [s.index for s in ALL_SPACES] == list(range(36))
    assert {s.color for s in ALL_SPACES} == set(COLORS)
    assert {s.number for s in ALL_SPACES} == set(NUMBERS)


def test_a_list_of_spaces_reads_with_commas_arrows_or_inner_blanks():
    want = [S("pink6"), S("white6"), S("red6")]
    assert parse_spaces("pink6, white6, red6") == want
    assert parse_spaces("pink 6 → white 6 -> red 6") == want
    assert parse_spaces(["pink 6", "white6", S("red6")]) == want


# ---------------------------------------------------------------- layouts


def test_the_example_layout_round_trips_through_its_file(tmp_path):
    path = tmp_path / "table.json"
    EXAMPLE.save(path)
    again = Layout.load(path)
    assert again == EXAMPLE and again.name == "rule-sheet example"
    data = json.loads(path.read_text())
    assert data["format"] == "micro-layout/1"
    assert data["rows"] == grid_names(EXAMPLE)
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]  # no temporary file left


def test_saving_over_a_layout_replaces_it(tmp_path):
    path = tmp_path / "table.json"
    EXAMPLE.save(path)
    other = EXAMPLE.turn_section(2, 180).renamed("turned")
    other.save(path)
    assert Layout.load(path) == other
    assert Layout.load(path).name == "turned"


def test_a_duplicate_and_a_missing_space_are_both_named():
    rows = grid_names(EXAMPLE)
    # put a second white 3 where red 5 was
    r, c = EXAMPLE.where(S("red5"))
    rows[r][c] = "white3"
    with pytest.raises(LayoutError) as err:
        Layout.from_rows(rows)
    w = EXAMPLE.where(S("white3"))
    first, second = sorted([w, (r, c)])
    assert str(err.value) == (
        f"white 3 appears twice (row {first[0] + 1} column {first[1] + 1}, "
        f"row {second[0] + 1} column {second[1] + 1}); red 5 is missing")


def test_several_missing_spaces_are_listed_together():
    rows = grid_names(EXAMPLE)
    rows[0] = ["blue1"] * 6
    msg = str(pytest.raises(LayoutError, Layout.from_rows, rows).value)
    assert msg.startswith("blue 1 appears 7 times")
    assert "are missing" in msg
    for s in EXAMPLE.rows[0]:
        if s != S("blue1"):
            assert s.label in msg


@pytest.mark.parametrize("data, words", [
    ({"rows": [["pink1"] * 6] * 5}, "6 rows needed, got 5"),
    ({"rows": [["pink1"] * 6] * 5 + [["pink1"] * 7]}, "row 6 must list 6 spaces, it has 7"),
    ({"rows": "pink1"}, "give 6 rows of 6 spaces"),
    ({"format": "micro-layout/9", "rows": []}, "format"),
    ({"rows": [], "sections": []}, "either 'rows'"),
    ({}, "either 'rows'"),
    ({"rows": [], "colour": "red"}, "unknown key 'colour'"),
    ({"name": 5, "rows": []}, "name"),
    ([], "JSON object"),
])
def test_a_bad_layout_file_names_the_field(data, words):
    with pytest.raises(LayoutError, match=words):
        Layout.from_dict(data)


def test_a_bad_space_in_a_layout_names_its_row_and_column():
    rows = grid_names(EXAMPLE)
    rows[1][2] = "purple3"
    with pytest.raises(LayoutError, match="row 2 column 3: 'purple3' is not a space"):
        Layout.from_rows(rows)


def test_loading_a_missing_or_broken_file_names_the_path(tmp_path):
    with pytest.raises(LayoutError, match="nothing.json"):
        Layout.load(tmp_path / "nothing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LayoutError, match="bad.json: not JSON"):
        Layout.load(bad)


def test_sections_without_turns_rebuild_the_board():
    sections = EXAMPLE.sections()
    assert sections[0][0][0] == EXAMPLE.at(0, 0)  # north-west
    assert sections[1][0][0] == EXAMPLE.at(0, 3)  # north-east
    assert sections[2][0][0] == EXAMPLE.at(3, 3)  # south-east
    assert sections[3][0][0] == EXAMPLE.at(3, 0)  # south-west
    assert Layout.from_sections(sections) == EXAMPLE


def test_a_section_turned_a_quarter_clockwise_moves_its_top_left_to_top_right():
    nw = EXAMPLE.sections()[0]
    turned = Layout.from_sections(EXAMPLE.sections(), [90, 0, 0, 0])
    assert turned.at(0, 2) == nw[0][0]
    assert turned.at(2, 2) == nw[0][2]
    assert turned.at(2, 0) == nw[2][2]
    assert turned.at(1, 1) == nw[1][1]
    assert turned.rows[3:] == EXAMPLE.rows[3:]  # the other sections stay


def test_four_quarter_turns_give_the_board_back():
    layout = EXAMPLE
    for _ in range(4):
        layout = layout.turn_section(1)
    assert layout == EXAMPLE
    assert EXAMPLE.turn_section(1, 180) == EXAMPLE.turn_section(1).turn_section(1)


def test_a_layout_file_may_give_sections_and_rotations():
    data = {"format": "micro-layout/1", "name": "turned",
            "sections": [[[s.name for s in row] for row in sec] for sec in EXAMPLE.sections()],
            "rotations": [0, 270, 0, 90]}
    layout = Layout.from_dict(data)
    assert layout == EXAMPLE.turn_section(1, 270).turn_section(3, 90)
    assert layout.name == "turned"


def test_a_bad_rotation_is_named_with_its_section():
    with pytest.raises(LayoutError, match=r"section 2 \(north-east\): rotation 45"):
        Layout.from_sections(EXAMPLE.sections(), [0, 45, 0, 0])
    with pytest.raises(LayoutError, match="four rotations"):
        Layout.from_sections(EXAMPLE.sections(), [0, 90])


# ---------------------------------------------------------------- moves


def test_the_worked_example_first_moves_from_pink_1():
    """Rule sheet: from pink 1 the robot may go to blue 1 or yellow 1 (vertically) or pink 6
    (horizontally); from pink 6 on to blue 6 or white 6 (horizontally) or pink 4 (vertically)."""
    assert set(EXAMPLE.moves(S("pink1"))) == {S("blue1"), S("yellow1"), S("pink6")}
    row, col = EXAMPLE.where(S("pink1"))
    assert EXAMPLE.where(S("blue1"))[1] == col and EXAMPLE.where(S("yellow1"))[1] == col
    assert EXAMPLE.where(S("pink6"))[0] == row
    assert set(EXAMPLE.moves(S("pink6"))) == {S("blue6"), S("white6"), S("pink4"), S("pink1")}
    assert EXAMPLE.where(S("pink4"))[1] == EXAMPLE.where(S("pink6"))[1]


def test_a_move_may_jump_past_nearer_matching_spaces():
    # pink1 → blue1 and pink1 → yellow1 are both moves, whichever is nearer
    r = EXAMPLE.where(S("pink1"))[0]
    near, far = sorted([S("blue1"), S("yellow1")], key=lambda s: abs(EXAMPLE.where(s)[0] - r))
    assert EXAMPLE.why_not(S("pink1"), far) is None
    assert EXAMPLE.why_not(S("pink1"), near) is None


def test_why_a_move_is_not_legal():
    assert "same row or column" in EXAMPLE.why_not(S("pink1"), S("white2"))
    assert "neither colour nor number" in EXAMPLE.why_not(S("pink1"), S("blue6"))
    assert "already stands" in EXAMPLE.why_not(S("pink1"), S("pink1"))


@settings(max_examples=60, deadline=None)
@given(st.permutations(ALL_SPACES))
def test_moves_are_the_row_and_column_spaces_sharing_colour_or_number(order):
    layout = Layout(tuple(tuple(order[r * 6:(r + 1) * 6]) for r in range(6)))
    for s in ALL_SPACES:
        r, c = layout.where(s)
        want = {t for t in ALL_SPACES if t != s and (layout.where(t)[0] == r
                                                      or layout.where(t)[1] == c)
                and (t.color == s.color or t.number == s.number)}
        assert set(layout.moves(s)) == want
        for t in want:  # the relation is symmetric, which the exact-count proof relies on
            assert s in layout.moves(t)


# ---------------------------------------------------------------- routes


def test_the_worked_example_route_is_five_moves_and_the_shortest():
    """pink 1 → pink 6 → white 6 → red 6 → red 2 → white 2 (the rule sheet's garbled copy also
    says the target is "white 1"; the route and the rule text agree on white 2)."""
    landings = parse_spaces("pink6, white6, red6, red2, white2")
    v = check_demonstration(EXAMPLE, "pink1", "white2", 5, landings)
    assert v.success and v.complete and v.reason is None
    best = shortest_route(EXAMPLE, "pink1", "white2")
    assert best is not None and best.moves == 5
    assert check_demonstration(EXAMPLE, "pink1", "white2", 5, best.landings).success
    wrong = check_demonstration(EXAMPLE, "pink1", "white1", 5, landings)
    assert not wrong.success and "not on the target white1" in wrong.reason


def test_exact_counts_from_the_worked_example():
    lengths = exact_lengths(EXAMPLE, "pink1", "white2")
    assert lengths.up_to(9) == [5, 6, 7, 8, 9]
    assert 4 not in lengths and 100 in lengths
    assert lengths.describe() == "every number from 5"
    route = route_of_length(EXAMPLE, "pink1", "white2", 8)
    assert route is not None and route.moves == 8 and route.end == S("white2")
    assert check_demonstration(EXAMPLE, "pink1", "white2", 8, route.landings).success
    assert route_of_length(EXAMPLE, "pink1", "white2", 4) is None


def test_a_board_whose_moves_only_pair_spaces_has_one_parity_and_unreachable_targets():
    layout = pattern_layout()
    s = layout.at(0, 0)
    partner = layout.at(0, 3)
    assert layout.moves(s) == (partner,)
    odd = exact_lengths(layout, s, partner)
    assert (odd.odd, odd.even, odd.zero) == (1, None, False)
    assert odd.describe() == "odd numbers from 1"
    assert route_of_length(layout, s, partner, 4) is None
    assert route_of_length(layout, s, partner, 5).spaces() == [s, partner] * 3
    home = exact_lengths(layout, s, s)
    assert home.zero and home.up_to(6) == [0, 2, 4, 6]
    assert home.describe() == "0 (already there), even numbers from 2"
    assert route_of_length(layout, s, s, 0).moves == 0
    far = layout.at(1, 0)
    assert not exact_lengths(layout, s, far).possible
    assert exact_lengths(layout, s, far).describe() == "none"
    assert shortest_route(layout, s, far) is None
    assert route_of_length(layout, s, partner, 3, via=far) is None


def test_describing_counts_lists_the_stragglers_before_the_run():
    assert ExactLengths(False, 5, 8).describe() == "5, every number from 7"
    assert ExactLengths(False, 5, 8).every_from == 7
    assert ExactLengths(False, 3, None).describe() == "odd numbers from 3"
    assert ExactLengths(False, None, 4).describe() == "even numbers from 4"
    assert ExactLengths(False, 9, 2).up_to(10) == [2, 4, 6, 8, 9, 10]
    assert ExactLengths(False, 9, 2).describe() == "2, 4, 6, every number from 8"


def test_the_intermediate_target_must_be_landed_on_first():
    plain = shortest_route(EXAMPLE, "pink1", "white2")
    assert S("red3") not in plain.landings
    via = shortest_route(EXAMPLE, "pink1", "white2", via="red3")
    assert via.moves > plain.moves
    assert S("red3") in via.landings and via.end == S("white2")
    lengths = exact_lengths(EXAMPLE, "pink1", "white2", via="red3")
    assert lengths.shortest == via.moves
    v = check_demonstration(EXAMPLE, "pink1", "white2", plain.moves, plain.landings, via="red3")
    assert not v.success and "without landing on the intermediate target red3" in v.reason


def test_the_start_does_not_count_as_landing_on_the_intermediate_target():
    route = shortest_route(EXAMPLE, "pink1", "white2", via="pink1")
    assert route.landings.count(S("pink1")) >= 1
    assert route.moves > 5


def brute_force_lengths(layout: Layout, start: Space, target: Space, via: Space | None,
                        limit: int) -> set[int]:
    """Every n ≤ limit with a route: literal walks up to 4 moves, then sets of
    (space, landed on via) move by move."""
    found = set()
    frontier = {(start, via is None)}
    for n in range(limit + 1):
        if any(s == target and landed for s, landed in frontier):
            found.add(n)
        frontier = {(t, landed or t == via) for s, landed in frontier for t in layout.moves(s)}
    walks = {0: [[start]]}
    for n in range(1, 5):
        walks[n] = [w + [t] for w in walks[n - 1] for t in layout.moves(w[-1])]
    for n in range(5):
        literal = any(w[-1] == target and (via is None or via in w[1:]) for w in walks[n])
        assert literal == (n in found)
    return found


@settings(max_examples=120, deadline=None)
@given(st.permutations(ALL_SPACES), st.data())
@pytest.mark.slow
def test_exact_counts_match_brute_force_on_random_layouts(order, data):
    layout = Layout(tuple(tuple(order[r * 6:(r + 1) * 6]) for r in range(6)))
    start = data.draw(st.sampled_from(ALL_SPACES))
    target = data.draw(st.sampled_from(ALL_SPACES))
    via = data.draw(st.none() | st.sampled_from(ALL_SPACES))
    limit = 24
    want = brute_force_lengths(layout, start, target, via, limit)
    lengths = exact_lengths(layout, start, target, via)
    assert set(lengths.up_to(limit)) == want
    for n in range(limit + 1):
        route = route_of_length(layout, start, target, n, via)
        assert (route is not None) == (n in want)
        if route is not None:
            assert route.moves == n and route.start == start
            if n:
                v = check_demonstration(layout, start, target, n, route.landings, via)
                assert v.success, v.reason
    best = shortest_route(layout, start, target, via)
    if want:
        assert best is not None and best.moves == min(want) == lengths.shortest
    else:  # nothing within the limit: no route, or only longer ones
        assert best is None or best.moves > limit


# ---------------------------------------------------------------- verifying


def test_passing_over_the_target_early_is_allowed_when_the_count_is_exact():
    landings = parse_spaces("pink6 white6 red6 red2 white2 red2 white2")
    assert check_demonstration(EXAMPLE, "pink1", "white2", 7, landings).success
    early = check_demonstration(EXAMPLE, "pink1", "white2", 7, landings[:5])
    assert not early.success and not early.complete
    assert early.reason == "5 of 7 moves made"


def test_stopping_short_is_a_failure():
    v = check_demonstration(EXAMPLE, "pink1", "white2", 7,
                            parse_spaces("pink6 white6 red6 red2 white2"), finished=True)
    assert v.complete and not v.success
    assert v.reason == "stopped after 5 of the 7 moves called"


def test_an_illegal_landing_fails_at_once_and_names_the_move():
    v = check_demonstration(EXAMPLE, "pink1", "white2", 5, parse_spaces("pink6 red2"))
    assert v.complete and not v.success and v.illegal_move == 2
    assert v.reason == "move 2: red2 is not in the same row or column as pink6"
    assert v.position == S("pink6") and v.moves == 1


def test_a_landing_beyond_the_called_number_is_refused():
    v = check_demonstration(EXAMPLE, "pink1", "white2", 1, parse_spaces("pink6 white6"))
    assert not v.success and v.reason == "move 2 is one more than the 1 called"


# ---------------------------------------------------------------- dice


class Scripted:
    """A random source that plays back chosen die faces (indices into COLORS and NUMBERS)."""

    def __init__(self, *spaces: str) -> None:
        self.values = []
        for name in spaces:
            s = S(name)
            self.values += [COLORS.index(s.color), s.number - 1]

    def randrange(self, stop: int) -> int:
        assert stop == 6
        return self.values.pop(0)


def test_a_roll_reads_the_colour_die_then_the_number_die():
    assert roll(Scripted("red6")) == S("red6")


def test_the_target_is_rolled_again_while_it_is_the_start():
    dice = Scripted("pink1", "pink1", "white2")
    assert roll_target(dice, S("pink1")) == S("white2")
    assert dice.values == []
    assert roll_avoiding(Scripted("pink1", "pink1", "white2"), [S("pink1")]) == (S("white2"), 2)


def test_the_intermediate_target_is_rolled_again_while_it_is_the_start_or_target():
    dice = Scripted("pink1", "white2", "pink1", "red6")
    assert roll_via(dice, S("pink1"), S("white2")) == S("red6")
    assert dice.values == []


def test_fair_dice_reach_every_space():
    rng = random.Random(5)
    seen = {roll(rng) for _ in range(2000)}
    assert seen == set(ALL_SPACES)


# ---------------------------------------------------------------- the game


def new_game(players=("Ann", "Bo", "Cy"), **options) -> MicroGame:
    g = MicroGame()
    g.apply({"type": "setup", "at": 0, "players": list(players),
             "layout": EXAMPLE.to_dict(), "seed": 7, "options": options})
    return g


def play_round(g: MicroGame, seat: int, at: float, target: str | None = None,
               success: bool = True) -> list[dict]:
    """Place a target (the shortest reachable other space if none is given), then let
    ``seat`` call the shortest count and land it, or land it with one move too many called."""
    view = g.view()
    start = S(view["start"]) if view["start"] else S("pink1")
    first = view["start"] is None
    if target is None:
        target = next(t.name for t in sorted(ALL_SPACES)
                      if t != start and exact_lengths(EXAMPLE, start, t).possible)
    cmd = {"type": "place", "at": at, "target": target}
    if first:
        cmd["start"] = start.name
    g.apply(cmd)
    route = shortest_route(EXAMPLE, start, target)
    g.apply({"type": "call", "at": at + 1, "seat": seat,
             "number": route.moves if success else route.moves + 1})
    events = g.apply({"type": "land", "at": at + 2, "spaces": [s.name for s in route.landings]})
    if not success:
        events += g.apply({"type": "done", "at": at + 3})
    return events


def types(events) -> list[str]:
    return [e["type"] for e in events]


def test_setup_refuses_bad_tables():
    g = MicroGame()
    base = {"type": "setup", "at": 0, "layout": EXAMPLE.to_dict()}
    with pytest.raises(MicroGameError, match="2 to 12 names"):
        g.apply({**base, "players": ["Ann"]})
    with pytest.raises(MicroGameError, match="'Ann' is seated twice"):
        g.apply({**base, "players": ["Ann", "Bo", "Ann"]})
    bad = EXAMPLE.to_dict()
    bad["rows"][0][0] = "pink1"
    with pytest.raises(MicroGameError, match="layout: pink 1 appears twice"):
        g.apply({**base, "players": ["Ann", "Bo"], "layout": bad})
    with pytest.raises(MicroGameError, match="unknown option 'turbo'"):
        g.apply({**base, "players": ["Ann", "Bo"], "options": {"turbo": True}})
    with pytest.raises(MicroGameError, match="stall_seconds"):
        g.apply({**base, "players": ["Ann", "Bo"], "options": {"stall_seconds": -1}})
    with pytest.raises(MicroGameError, match="needs its time 'at'"):
        g.apply({"type": "roll"})
    with pytest.raises(MicroGameError, match="unknown command 'bid'"):
        g.apply({"type": "bid", "at": 0})
    assert g.phase == "setup"


def test_the_first_roll_gives_the_start_and_a_different_target():
    g = new_game()
    events = g.apply({"type": "roll", "at": 1})
    e = events[0]
    assert e["type"] == "rolled" and e["first_round"] and e["seat"] == 0
    assert e["start"] != e["target"]
    view = g.view()
    assert view["phase"] == "round" and view["robot"] == e["start"]
    assert view["chip_on_target"] and view["chips_in_supply"] == 24
    json.dumps(view)


def test_the_same_commands_at_the_same_times_give_the_same_game():
    script = [{"type": "roll", "at": 1}, {"type": "reroll", "at": 5},
              {"type": "tick", "at": 500}, {"type": "call", "at": 501, "seat": 2, "number": 3},
              {"type": "give_up", "at": 502}, {"type": "roll", "at": 503}]
    runs = []
    for _ in range(2):
        g = new_game(expert=True)
        runs.append([g.apply(c) for c in script])
    assert runs[0] == runs[1]
    assert json.loads(json.dumps(runs[0])) == runs[0]  # events are plain JSON
    assert json.loads(json.dumps(g.view())) == g.view()
    assert json.loads(json.dumps(g.summary())) == g.summary()


def test_the_first_call_demonstrates_and_others_wait():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    events = g.apply({"type": "call", "at": 2, "player": "Bo", "number": 5})
    assert events[0] | {"at": 0} == {"type": "demonstration_started", "at": 0, "seat": 1,
                                      "name": "Bo", "number": 5}
    with pytest.raises(MicroGameError, match="Bo is demonstrating"):
        g.apply({"type": "call", "at": 3, "player": "Ann", "number": 4})
    with pytest.raises(MicroGameError, match="it is Bo's demonstration, not Ann's"):
        g.apply({"type": "land", "at": 3, "seat": 0, "space": "pink6"})


def test_the_exact_count_wins_a_chip_and_the_target_becomes_the_next_start():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 2, "seat": 1, "number": 5})
    events = []
    for at, space in enumerate(["pink6", "white6", "red6", "red2", "white2"], start=3):
        assert g.phase == "demonstrating"
        events += g.apply({"type": "land", "at": at, "space": space})
    assert types(events)[-4:] == ["landed", "demonstration_succeeded", "chip_won", "round_over"]
    view = g.view()
    assert [p["vp"] for p in view["players"]] == [0, 1, 0]
    assert view["phase"] == "round_over"
    assert view["start"] == view["robot"] == "white2" and view["target"] is None
    assert view["roller"] == 1  # the dice pass to the left: clockwise
    assert view["chips_in_supply"] == 24
    record = view["rounds"][0]
    assert record["success"] and record["shortest"] == 5 and record["possible"]
    with pytest.raises(MicroGameError, match="only the first round places the start"):
        g.apply({"type": "place", "at": 9, "start": "pink1", "target": "red6"})
    g.apply({"type": "place", "at": 9, "target": "red6"})
    assert g.view()["start"] == "white2"


def test_passing_the_target_early_does_not_end_the_demonstration():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 2, "seat": 0, "number": 7})
    g.apply({"type": "land", "at": 3, "spaces": ["pink6", "white6", "red6", "red2", "white2"]})
    assert g.phase == "demonstrating"
    assert g.view()["demonstration"]["moves_left"] == 2
    events = g.apply({"type": "land", "at": 4, "spaces": ["red2", "white2"]})
    assert "demonstration_succeeded" in types(events)


def test_a_wrong_count_fails_and_the_robot_still_ends_on_the_target():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 2, "seat": 0, "number": 6})
    g.apply({"type": "land", "at": 3, "spaces": ["pink6", "white6", "red6", "red2", "white2"]})
    events = g.apply({"type": "done", "at": 4})
    assert types(events) == ["demonstration_failed", "chip_returned", "round_over"]
    assert events[0]["reason"] == "stopped after 5 of the 6 moves called"
    view = g.view()
    assert view["start"] == "white2" and view["chips_in_supply"] == 25
    assert view["rounds"][0]["possible"] is True  # six was possible, she did not find it


def test_an_illegal_landing_fails_the_demonstration():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 2, "seat": 0, "number": 5})
    events = g.apply({"type": "land", "at": 3, "space": "white2"})
    assert events[0]["legal"] is False
    assert events[1]["reason"] == "move 1: white2 is not in the same row or column as pink1"
    assert g.view()["start"] == "white2"


def test_a_landing_where_the_robot_stands_is_refused_and_changes_nothing():
    g = new_game()
    g.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 2, "seat": 0, "number": 5})
    g.apply({"type": "land", "at": 3, "space": "pink6"})
    before = g.view()
    with pytest.raises(MicroGameError, match="already stands on pink6"):
        g.apply({"type": "land", "at": 4, "space": "pink6"})
    with pytest.raises(MicroGameError, match="land: 'purple1'"):
        g.apply({"type": "land", "at": 4, "spaces": ["white6", "purple1"]})
    assert g.view() == before


def test_a_failure_gives_a_chip_to_the_player_with_fewest():
    assert penalty_recipient([2, 3, 0, 1], 1) == 2
    assert penalty_recipient([0, 3, 1, 1], 1) == 0


def test_the_penalty_tie_goes_to_the_nearest_clockwise_from_the_failing_player():
    # seats 3 and 0 both have none; clockwise from seat 2 comes seat 3 first
    assert penalty_recipient([0, 3, 2, 0], 2) == 3
    # from seat 3, clockwise wraps round to seat 0 before seat 2
    assert penalty_recipient([0, 5, 0, 2], 3) == 0
    # she never gives to herself, even when she has the fewest
    assert penalty_recipient([3, 3, 1], 2) == 0


def test_a_failure_without_chips_gives_nothing():
    assert penalty_recipient([0, 2, 1], 0) is None


def test_the_game_moves_the_penalty_chip_clockwise_on_a_tie():
    g = new_game(players=("Ann", "Bo", "Cy", "Di"))
    play_round(g, 1, at=10)  # Bo 1
    play_round(g, 1, at=20)  # Bo 2
    play_round(g, 0, at=30)  # Ann 1
    assert [p["vp"] for p in g.view()["players"]] == [1, 2, 0, 0]
    events = play_round(g, 1, at=40, success=False)  # Bo fails: Cy and Di tie at 0
    given = next(e for e in events if e["type"] == "chip_given")
    assert (given["name"], given["to_name"]) == ("Bo", "Cy")
    assert [p["vp"] for p in g.view()["players"]] == [1, 1, 1, 0]
    events = play_round(g, 0, at=50, success=False)  # Ann fails: only Di has 0
    assert next(e for e in events if e["type"] == "chip_given")["to_name"] == "Di"


def test_five_chips_win_the_game():
    g = new_game(players=("Ann", "Bo"))
    for k in range(4):
        play_round(g, 0, at=10 * (k + 1))
    assert g.phase == "round_over"
    events = play_round(g, 0, at=100)
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == "vp"
    assert over["winners"] == [0] and over["names"] == ["Ann"] and over["scores"] == [5, 0]
    with pytest.raises(MicroGameError, match="the game is over"):
        g.apply({"type": "roll", "at": 200})


def test_a_gift_that_makes_five_also_wins():
    g = new_game(players=("Ann", "Bo"), vp_to_win=2)
    play_round(g, 0, at=10)
    play_round(g, 1, at=20)
    events = play_round(g, 0, at=30, success=False)  # Ann's chip goes to Bo: Bo has 2
    assert events[-1]["type"] == "game_over" and events[-1]["names"] == ["Bo"]


def test_when_all_chips_are_given_out_the_most_win_and_ties_share():
    players = [f"P{i}" for i in range(7)]
    g = new_game(players=players)
    for k in range(25):
        assert g.phase in ("idle", "round_over")
        events = play_round(g, k % 7, at=10 * (k + 1))
    over = events[-1]
    assert over["type"] == "game_over" and over["reason"] == "chips"
    assert over["scores"] == [4, 4, 4, 4, 3, 3, 3]
    assert over["winners"] == [0, 1, 2, 3]
    assert g.view()["chips_in_supply"] == 0 and g.view()["winners"] == [0, 1, 2, 3]


def test_the_stall_hourglass_rerolls_the_target_and_the_chip_moves_along():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 10, "start": "pink1", "target": "white2"})
    assert g.next_deadline() == 130
    assert g.apply({"type": "tick", "at": 129.5}) == []
    events = g.apply({"type": "tick", "at": 131})
    assert types(events) == ["target_rerolled"]
    e = events[0]
    assert e["reason"] == "stall" and e["at"] == 130 and e["start"] == "pink1"
    assert e["target"] != "pink1"
    view = g.view(now=140)
    assert view["stall"]["ends_at"] == 250 and view["stall"]["remaining"] == 110
    assert view["chips_in_supply"] == 24 and view["round"] == 1


def test_time_passing_before_a_call_rerolls_first():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    events = g.apply({"type": "call", "at": 300, "seat": 0, "number": 3})
    assert types(events) == ["target_rerolled", "target_rerolled", "demonstration_started"]
    assert [e["at"] for e in events[:2]] == [120, 240]


def test_no_stall_while_demonstrating_or_when_switched_off():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 10, "seat": 0, "number": 5})
    assert g.next_deadline() is None
    assert g.apply({"type": "tick", "at": 1000}) == []
    off = new_game(stall_seconds=None)
    off.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    assert off.apply({"type": "tick", "at": 10_000}) == [] and off.phase == "round"


def test_the_players_may_agree_to_reroll():
    g = new_game()
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    e = g.apply({"type": "reroll", "at": 20})[0]
    assert e["type"] == "target_rerolled" and e["reason"] == "agreed" and e["dice"] == "digital"
    e = g.apply({"type": "place", "at": 30, "target": "red6"})[0]
    assert e["type"] == "target_rerolled" and e["dice"] == "table" and g.view()["target"] == "red6"
    assert g.next_deadline() == 30 + 150


def test_a_target_on_the_start_is_refused():
    g = new_game()
    with pytest.raises(MicroGameError, match="the target pink1 is the start"):
        g.apply({"type": "place", "at": 0, "start": "pink1", "target": "pink 1"})
    with pytest.raises(MicroGameError, match="needs the 'start'"):
        g.apply({"type": "place", "at": 0, "target": "white2"})


def test_the_expert_variant_needs_the_intermediate_target_landed_on():
    g = new_game(expert=True)
    with pytest.raises(MicroGameError, match="needs an intermediate target"):
        g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    with pytest.raises(MicroGameError, match="red6 is the start or the target"):
        g.apply({"type": "place", "at": 0, "start": "red6", "target": "white2", "via": "red6"})
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2", "via": "red3"})
    g.apply({"type": "call", "at": 1, "seat": 0, "number": 5})
    events = g.apply({"type": "land", "at": 2,
                      "spaces": ["pink6", "white6", "red6", "red2", "white2"]})
    failed = next(e for e in events if e["type"] == "demonstration_failed")
    assert "without landing on the intermediate target red3" in failed["reason"]
    route = shortest_route(EXAMPLE, "white2", "red6", via="pink1")
    g.apply({"type": "place", "at": 3, "target": "red6", "via": "pink1"})
    g.apply({"type": "call", "at": 4, "seat": 1, "number": route.moves})
    events = g.apply({"type": "land", "at": 5, "spaces": [s.name for s in route.landings]})
    assert "demonstration_succeeded" in types(events)


def test_expert_dice_roll_a_third_space():
    g = new_game(expert=True)
    e = g.apply({"type": "roll", "at": 0})[0]
    assert len({e["start"], e["target"], e["via"]}) == 3


def test_a_non_expert_game_refuses_an_intermediate_target():
    g = new_game()
    with pytest.raises(MicroGameError, match="expert variant"):
        g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2", "via": "red6"})


def test_giving_up_fails_and_the_table_may_judge_by_its_word():
    g = new_game()
    play_round(g, 0, at=10)
    g.apply({"type": "place", "at": 20, "target": "red6"})
    g.apply({"type": "call", "at": 21, "seat": 0, "number": 4})
    events = g.apply({"type": "give_up", "at": 22})
    assert events[0]["reason"] == "Ann gave up"
    assert next(e for e in events if e["type"] == "chip_given")["to_name"] == "Bo"
    g.apply({"type": "place", "at": 30, "target": "pink1"})
    g.apply({"type": "call", "at": 31, "seat": 2, "number": 4})
    with pytest.raises(MicroGameError, match="who gave it"):
        g.apply({"type": "verdict", "at": 32, "success": True})
    events = g.apply({"type": "verdict", "at": 32, "success": True, "by": "Ann"})
    assert types(events)[:2] == ["demonstration_succeeded", "chip_won"]
    assert events[0]["by"] == "Ann"


def test_undo_takes_back_a_demonstration_and_restarts_the_hourglass():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    g.apply({"type": "call", "at": 10, "seat": 0, "number": 2})
    g.apply({"type": "land", "at": 11, "space": "pink6"})
    g.apply({"type": "land", "at": 12, "space": "white6"})  # fails: Ann had no chip
    assert g.phase == "round_over"
    assert types(g.apply({"type": "undo", "at": 20})) == ["undone"]
    assert g.phase == "demonstrating" and g.view()["demonstration"]["landings"] == ["pink6"]
    g.apply({"type": "undo", "at": 21})
    g.apply({"type": "undo", "at": 22})  # the call
    assert g.phase == "round" and g.next_deadline() == 22 + 120
    g.apply({"type": "undo", "at": 23})  # the placing
    assert g.phase == "idle" and not g.view()["can_undo"]
    with pytest.raises(MicroGameError, match="nothing to undo"):
        g.apply({"type": "undo", "at": 24})


def test_undo_restores_the_chips_and_the_dice():
    g = new_game()
    play_round(g, 1, at=10)
    g.apply({"type": "roll", "at": 20})
    rolled = g.view()["target"]
    g.apply({"type": "undo", "at": 21})
    assert g.view()["target"] is None
    g.apply({"type": "roll", "at": 22})
    assert g.view()["target"] == rolled  # the dice's state came back with the undo
    g.apply({"type": "undo", "at": 23})
    g.apply({"type": "undo", "at": 24})  # Bo's last landing: his chip goes back
    assert [p["vp"] for p in g.view()["players"]] == [0, 0, 0]
    assert g.phase == "demonstrating"


def test_commands_out_of_phase_say_why():
    g = MicroGame()
    with pytest.raises(MicroGameError, match="not set up"):
        g.apply({"type": "roll", "at": 0})
    g = new_game()
    with pytest.raises(MicroGameError, match="no target yet"):
        g.apply({"type": "call", "at": 1, "seat": 0, "number": 3})
    g.apply({"type": "roll", "at": 1})
    with pytest.raises(MicroGameError, match="nobody has called"):
        g.apply({"type": "land", "at": 2, "space": "pink1"})
    with pytest.raises(MicroGameError, match="there is no seat 5"):
        g.apply({"type": "call", "at": 2, "seat": 5, "number": 3})
    with pytest.raises(MicroGameError, match="'Zed' is not at this table"):
        g.apply({"type": "call", "at": 2, "player": "Zed", "number": 3})
    with pytest.raises(MicroGameError, match="a number of moves from 1"):
        g.apply({"type": "call", "at": 2, "seat": 0, "number": 0})


def test_the_view_is_json_and_lists_the_robots_moves():
    g = new_game()
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    view = json.loads(json.dumps(g.view()))
    assert view["game"] == "micro-robots"
    assert set(view["moves"]) == {"blue1", "yellow1", "pink6"}
    assert view["layout"]["rows"] == grid_names(EXAMPLE)
    assert view["players"][2] == {"seat": 2, "name": "Cy", "vp": 0}
    g.apply({"type": "call", "at": 1, "seat": 2, "number": 5})
    g.apply({"type": "land", "at": 2, "space": "pink6"})
    demo = g.view()["demonstration"]
    assert demo == {"seat": 2, "name": "Cy", "number": 5, "landings": ["pink6"],
                    "moves_left": 4, "via_landed": None}
    assert g.view()["robot"] == "pink6"


def test_a_new_game_starts_over_with_new_setup():
    g = new_game()
    play_round(g, 0, at=10)
    events = g.apply({"type": "new_game", "at": 50, "players": ["X", "Y"],
                      "layout": EXAMPLE.to_dict(), "seed": 1})
    assert types(events) == ["new_game", "game_set_up"]
    assert g.phase == "idle" and [p["vp"] for p in g.view()["players"]] == [0, 0]
    assert g.summary()["rounds"] == []


def test_options_read_from_an_object():
    assert MicroOptions.from_dict({"expert": True, "stall_seconds": 180}).expert
    with pytest.raises(ValueError, match="vp_to_win"):
        MicroOptions(vp_to_win=0)
    with pytest.raises(ValueError, match="expert"):
        MicroOptions(expert="yes")



def test_a_refused_command_keeps_what_time_did_before_it():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 0, "start": "pink1", "target": "white2"})
    with pytest.raises(GameError) as err:  # the classic game's error: the table catches both
        g.apply({"type": "call", "at": 130, "seat": 9, "number": 3})
    assert isinstance(err.value, MicroGameError)
    assert types(err.value.events) == ["target_rerolled"]
    assert g.view()["target"] == err.value.events[0]["target"] and g.now == 130
    with pytest.raises(MicroGameError) as err:
        g.apply({"type": "call", "at": 131, "seat": 9, "number": 3})
    assert err.value.events == [] and g.now == 130  # no trace, not even of its time


def test_resume_does_not_count_the_time_spent_off():
    g = new_game(stall_seconds=120)
    g.apply({"type": "place", "at": 1000, "start": "pink1", "target": "white2"})
    g.apply({"type": "tick", "at": 1100})  # 20 seconds of sand left
    events = g.apply({"type": "resume", "at": 5})  # the machine restarted: a new clock
    assert events == [{"type": "resumed", "at": 5.0, "shift": -1095.0}]
    assert g.next_deadline() == 25
    assert g.apply({"type": "tick", "at": 24}) == []
    assert types(g.apply({"type": "tick", "at": 25})) == ["target_rerolled"]
    g.apply({"type": "call", "at": 30, "seat": 0, "number": 4})
    g.apply({"type": "undo", "at": 31})
    assert g.next_deadline() == 31 + 120


def test_a_board_being_entered_reports_bad_names_duplicates_and_what_is_left():
    rows = [[None] * 6 for _ in range(6)]
    rows[0][0] = "pink1"
    rows[2][3] = "pink 1"
    rows[4][4] = "gold2"
    assert check_rows(rows) == [
        "row 5 column 5: 'gold2' is not a space: 'gold' is not a colour (blue, yellow, green, "
        "red, pink, white)",
        "pink 1 appears twice (row 1 column 1, row 3 column 4)",
        "33 spaces still to fill",
    ]
    full = grid_names(EXAMPLE)
    assert check_rows(full) == []
    gone = EXAMPLE.at(5, 5)
    full[5][5] = "white2"
    assert check_rows(full) == ["white 2 appears twice (row 1 column 3, row 6 column 6)",
                                f"{gone.label} is missing"]
    assert check_rows([["pink1"]]) == ["the board is 6 rows of 6 spaces"]


def test_on_the_example_board_every_target_can_be_reached_from_every_start():
    for start in ALL_SPACES:
        for target in ALL_SPACES:
            if start != target:
                assert exact_lengths(EXAMPLE, start, target).possible, (start, target)
