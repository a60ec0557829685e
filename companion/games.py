"""The games a table plays, by name: the registry the journal, the table and the camera share.

A ``setup`` or ``new_game`` command names its game with ``"game": "micro-robots"`` (no
``game``: the classic game, as in every journal written before Micro Robots); every other
command plays the game on the table. Choosing the other game is always a new game.

Pure: no journal, no clock. The store appends and replays with these; the table loop plays an
unjournaled game with :func:`play`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .game import Event, Game, GameError
from .micro import MicroGame

CLASSIC = "ricochet-robots"
MICRO = "micro-robots"
GAMES: dict[str, type[Game] | type[MicroGame]] = {CLASSIC: Game, MICRO: MicroGame}


def game_kind(game: object) -> str:
    """``micro-robots`` or ``ricochet-robots``: which game an engine plays."""
    return MICRO if isinstance(game, MicroGame) else CLASSIC


def command_kind(command: Mapping[str, Any], current: str = CLASSIC) -> str:
    """Which game a command belongs to: a ``setup``/``new_game`` names it with ``game`` (none:
    the classic game, as in every journal written before Micro Robots); every other command
    plays the ``current`` game."""
    if command.get("type") not in ("setup", "new_game"):
        return current
    kind = command.get("game", CLASSIC)
    if kind not in GAMES:
        raise GameError(f"game: {kind!r} is not a game this table plays "
                        f"({', '.join(GAMES)})")
    return str(kind)


def engine_command(command: Mapping[str, Any]) -> dict[str, Any]:
    """The command as the game engine takes it: without the table's ``game`` key."""
    return {k: v for k, v in command.items() if k != "game"}


def running(game: Game | MicroGame) -> bool:
    """Is an hourglass running whose sand a power cut could take (the classic timer or no-bid
    timeout, the Micro Robots stall hourglass)?"""
    if isinstance(game, MicroGame):
        return game.next_deadline() is not None
    return game.phase == "timer" or (game.phase == "bidding" and not game.s.solo)


def replay_game(commands: Sequence[Mapping[str, Any]]) -> Game | MicroGame:
    """A game rebuilt from its journaled commands, in order; the first says which game."""
    kind = command_kind(commands[0]) if commands else CLASSIC
    game = GAMES[kind]()
    for c in commands:
        game.apply(engine_command(c))
    return game


def play(game: Game | MicroGame,
         command: Mapping[str, Any]) -> tuple[Game | MicroGame, list[Event]]:
    """Apply ``command`` to an unjournaled ``game``: the engine that plays on (a fresh one of
    the other game when the command chooses it, as the store does it) and the events."""
    kind = command_kind(command, game_kind(game))
    if kind != game_kind(game):
        engine = GAMES[kind]()
        return engine, engine.apply({**engine_command(command), "type": "new_game"})
    return game, game.apply(engine_command(command))
