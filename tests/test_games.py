"""The games registry: which game a command plays, and an unjournaled game switching games."""

from __future__ import annotations

import pytest

from companion.game import Game, GameError
from companion.games import CLASSIC, MICRO, command_kind, engine_command, game_kind, play
from companion.micro import MicroGame


def test_a_setup_without_a_game_key_is_the_classic_game():
    assert command_kind({"type": "setup"}) == CLASSIC
    assert command_kind({"type": "setup", "game": MICRO}) == MICRO


def test_every_other_command_plays_the_game_on_the_table():
    assert command_kind({"type": "bid", "game": CLASSIC}, MICRO) == MICRO


def test_an_unknown_game_is_refused_by_name():
    with pytest.raises(GameError, match="'chess' is not a game"):
        command_kind({"type": "new_game", "game": "chess"})


def test_the_engine_never_sees_the_game_key():
    assert engine_command({"type": "setup", "game": MICRO, "players": ["A"]}) == \
        {"type": "setup", "players": ["A"]}


def test_choosing_the_other_game_is_a_fresh_engine_and_a_new_game():
    classic = Game()
    setup = {"type": "setup", "game": MICRO, "players": ["Anna", "Ben"], "at": 0.0,
             "layout": None}
    with pytest.raises(GameError):  # a micro setup needs a layout: refused, nothing switched
        play(classic, setup)
    engine, events = play(classic, {"type": "new_game", "game": MICRO, "at": 0.0})
    assert isinstance(engine, MicroGame) and game_kind(engine) == MICRO
    assert events and events[0]["type"] == "new_game"
    same, _ = play(engine, {"type": "new_game", "game": MICRO, "at": 1.0})
    assert same is engine
