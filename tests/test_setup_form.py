"""The setup form: what it offers and the setup commands it makes, checked field by field."""

from __future__ import annotations

import pytest

from companion.board import Board
from companion.game import Game
from companion.rules import Rules
from companion.setup_form import (
    DEFAULT_TILES,
    SEATS,
    check_micro_setup,
    check_setup,
    current_tiles,
    game_robots,
    setup_info,
    starting_robots,
)


def test_an_unknown_edition_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match=r"preset: unknown edition 'chess' \(known: .*abacus"):
        check_setup(["Anna"], "chess", {}, None, current=list(DEFAULT_TILES), seen=None, seed=1)


def test_micro_robots_is_not_an_edition_of_the_classic_game():
    with pytest.raises(ValueError, match="preset: unknown edition 'micro-robots'"):
        check_setup(["Anna"], "micro-robots", {}, None, current=list(DEFAULT_TILES),
                    seen=None, seed=1)


def test_robots_the_camera_sees_stand_there_and_the_rest_are_spread_on_free_cells():
    cmd = check_setup(["Anna", "Ben"], "abacus-2013", {}, None, current=list(DEFAULT_TILES),
                      seen={"red": "c2", "pink": "a1"}, seed=3)
    robots = cmd["robots"]
    assert robots["red"] == "c2" and set(robots) == {"red", "green", "blue", "yellow", "black"}
    board = Board.from_tiles(list(DEFAULT_TILES))
    cells = [board.cell(c) for c in robots.values()]
    assert len(set(cells)) == 5
    assert all(c not in board.blocked and board.target_at(c) is None for c in cells[1:])


def test_the_spread_is_the_same_for_the_same_seed():
    board = Board.from_tiles(list(DEFAULT_TILES))
    first = starting_robots(board, Rules(), None, 11)
    assert starting_robots(board, Rules(), None, 11) == first


def test_the_fifth_robot_is_on_the_table_only_when_the_rules_say_so():
    assert game_robots(Rules.from_spec({"preset": "abacus-2013", "fifth_robot": "none"})) == \
        ["red", "green", "blue", "yellow"]
    assert game_robots(Rules.from_spec({"preset": "abacus-2013", "fifth_robot": "silver"}))[-1] \
        == "silver"


def test_the_form_starts_from_the_games_tiles_then_the_cameras_then_the_default():
    board = Board.from_tiles(["1A", "2A", "3A", "4A"])
    assert current_tiles(board, ["4B", "3B", "2B", "1B"]) == ["1A", "2A", "3A", "4A"]
    assert current_tiles(None, ["4B", "3B", "2B", "1B"]) == ["4B", "3B", "2B", "1B"]
    assert current_tiles(None, None) == list(DEFAULT_TILES)


def test_a_micro_robots_game_needs_two_players_and_a_layout():
    with pytest.raises(ValueError, match="players: Micro Robots is for 2 to"):
        check_micro_setup(["Anna"], {}, {}, layouts=None)
    with pytest.raises(ValueError, match="layout: this table keeps no saved layouts"):
        check_micro_setup(["Anna", "Ben"], "kitchen", {}, layouts=None)
    with pytest.raises(ValueError, match="layout: choose a saved layout"):
        check_micro_setup(["Anna", "Ben"], None, {}, layouts=None)


def test_the_form_offers_both_games_every_seat_and_the_editions():
    info = setup_info(Game(), preset_given="abacus-2013", camera_tiles=None, layouts=None,
                      proposal=False)
    assert info["games"] == ["ricochet-robots", "micro-robots"] and info["seats"] == SEATS
    assert "micro-robots" not in info["presets"] and info["tiles"] == list(DEFAULT_TILES)
    assert info["detected_tiles"] is None and info["micro"]["layouts"] == []
