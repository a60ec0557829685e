"""The setup form: what it offers, and the ``setup`` command it makes, checked field by field.

Pure: the table hands in what it knows (the game on the table, the tiles the camera sees, the
robots where it sees them, the saved layouts); a bad field is a :class:`ValueError` naming it,
before any command reaches the game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

from . import micro
from .board import Board, tile_names
from .games import CLASSIC, MICRO
from .micro import MicroGame, MicroOptions
from .rules import PRESETS, PositionError, Rules

DEFAULT_TILES = ("4B", "3B", "2B", "1A")
# Seats the page offers (a phone and a QR code each); the games themselves allow more.
SEATS = 8
# What the setup page calls a rule option where its name alone says too little.
OPTION_LABELS = {
    "transparent_robot": "transparent robot (variant: passes walls for +1 move each)",
}
# The stall hourglass a user may choose for Micro Robots: the rules say two or three minutes.
STALL_CHOICES = (120.0, 150.0, 180.0)


class Layouts(Protocol):
    """The saved Micro Robots layouts (:class:`companion.store.LayoutShelf`)."""

    def list(self) -> list[dict[str, Any]]: ...

    def load(self, name: str) -> micro.Layout: ...


def player_names(game: Any) -> list[str]:
    """The names of the players seated, in seat order."""
    return [p if isinstance(p, str) else p.name for p in game.s.players]


def check_setup(players: list[str], preset: str, options: dict[str, Any],
                tiles: list[str] | None, *, current: list[str],
                seen: Mapping[str, str] | None, seed: int | None) -> dict[str, Any]:
    """A ``setup`` command from the setup form, or :class:`ValueError` naming the field.
    ``current``: the tiles to use when none are given (:func:`current_tiles`); ``seen``: the
    robots where the camera sees them; ``seed``: the game's, for spreading the rest."""
    if preset not in PRESETS or preset == "micro-robots":
        known = ", ".join(p for p in PRESETS if p != "micro-robots")
        raise ValueError(f"preset: unknown edition {preset!r} (known: {known})")
    try:
        rules = Rules.from_spec({"preset": preset, **options})
    except PositionError as e:
        raise ValueError(str(e)) from None
    tiles = list(tiles or current)
    try:
        board = Board.from_tiles(tiles)
    except ValueError as e:
        raise ValueError(str(e)) from None
    robots = starting_robots(board, rules, seen, seed)
    return {"type": "setup", "players": players, "rules": rules.to_spec(),
            "board": {"tiles": list(board.tiles or tiles)}, "robots": robots}

def current_tiles(board: Board | None, seen: list[str] | None) -> list[str]:
    """The tiles the setup form starts from: the game's board, else the tiles the camera
    sees, else the default four."""
    b = board
    if b is not None and b.tiles:
        return list(b.tiles)
    if seen:
        return list(seen)
    return list(DEFAULT_TILES)

def starting_robots(board: Board, rules: Rules, seen_robots: Mapping[str, str] | None,
                    seed: int | None) -> dict[str, str]:
    """Where the robots stand: as the camera sees them (the sim table's camera included);
    a robot it does not see (none yet, or the fifth robot kept in the box) is spread on a
    free cell (the sim table then places it there, the referee moves it on a real one)."""
    names = game_robots(rules)
    seen = {n: c for n, c in (seen_robots or {}).items() if n in names}
    rest = [n for n in names if n not in seen]
    if not rest:
        return {n: seen[n] for n in names}
    spread = _spread(board, rest, seed or 7,
                     taken={board.cell(c) for c in seen.values()})
    return {n: seen[n] if n in seen else spread[n] for n in names}

def setup_info(game: Any, *, preset_given: str, camera_tiles: list[str] | None,
               layouts: Layouts | None, proposal: bool) -> dict[str, Any]:
    """What the setup form offers: the games, the seats, the editions and their options, the
    tiles (and those the camera sees), the Micro Robots options and saved layouts.
    ``preset_given``: the table's edition when no game is set up yet."""
    s = game.s
    micro_game = isinstance(game, MicroGame)
    options = []
    for name in Rules.option_names():
        value = getattr(PRESETS["abacus-2013"], name)
        choice = Rules._CHOICES.get(name)
        kind = ("choice" if choice else "bool" if isinstance(value, bool)
                else "text" if isinstance(value, str) else "number")
        options.append({"name": name, "label": OPTION_LABELS.get(name, name.replace("_", " ")),
                        "kind": kind, "choices": list(choice) if choice else None})
    presets = {p: {n: getattr(r, n) for n in Rules.option_names()}
               for p, r in PRESETS.items()}
    detected = list(camera_tiles) if camera_tiles else None
    preset = s.rules.preset if s.players and not micro_game else preset_given
    if preset == "micro-robots":  # the edition list is of the classic game
        preset = "abacus-2013"
    kind = MICRO if micro_game or (not s.players and preset_given == "micro-robots") \
        else CLASSIC
    return {"game": kind, "games": [CLASSIC, MICRO], "seats": SEATS,
            "players": player_names(game), "preset": preset, "options": options,
            "presets": {p: v for p, v in presets.items() if p != "micro-robots"},
            "tiles": current_tiles(getattr(s, "board", None), camera_tiles),
            "detected_tiles": detected,
            "tile_names": list(tile_names()),
            "micro": {"options": (s.options if micro_game else MicroOptions()).to_dict(),
                      "layout": s.layout.name if micro_game and s.layout else None,
                      "layouts": layouts.list() if layouts is not None else [],
                      "first_roller": s.roller if micro_game and s.players else 0,
                      "proposal": proposal}}


def check_micro_setup(players: list[str], layout: Any, options: Mapping[str, Any],
                      first_roller: int = 0, *, layouts: Layouts | None) -> dict[str, Any]:
    """A Micro Robots ``setup`` command from the setup form, or :class:`ValueError` naming
    the field. ``layout``: the name of a saved layout, or a ``micro-layout/1`` object."""
    most = min(micro.MAX_PLAYERS, SEATS)
    if not 2 <= len(players) <= most:
        raise ValueError(f"players: Micro Robots is for 2 to {most} players")
    if isinstance(layout, str):
        if layouts is None:
            raise ValueError("layout: this table keeps no saved layouts")
        try:
            board = layouts.load(layout)
        except micro.LayoutError as e:
            raise ValueError(f"layout: {e}") from None
    elif layout is None:
        raise ValueError("layout: choose a saved layout, or enter the board first")
    else:
        try:
            board = micro.Layout.from_dict(layout)
        except micro.LayoutError as e:
            raise ValueError(f"layout: {e}") from None
    try:
        opts = MicroOptions.from_dict(options)
    except (TypeError, ValueError) as e:
        raise ValueError(f"options: {e}") from None
    if opts.stall_seconds is not None and not 60 <= opts.stall_seconds <= 600:
        raise ValueError("options: stall_seconds: the stall hourglass runs 60 to 600 "
                         "seconds (the rules say two or three minutes), or null for none")
    if isinstance(first_roller, bool) or not isinstance(first_roller, int) \
            or not 0 <= first_roller < len(players):
        raise ValueError(f"first_roller: a seat from 0 to {len(players) - 1}")
    return {"type": "setup", "game": MICRO, "players": list(players),
            "layout": board.to_dict(), "options": opts.to_dict(),
            "first_roller": first_roller}


def game_robots(rules: Rules) -> list[str]:
    """The robots a game under these rules has on the table."""
    names = ["red", "green", "blue", "yellow"]
    if rules.fifth_robot != "none":
        names.append(rules.fifth_robot)
    if rules.transparent_robot:
        names.append("transparent")
    return names


def _spread(board: Board, names: list[str], seed: int,
            taken: set[int] | frozenset[int] = frozenset()) -> dict[str, str]:
    rng = random.Random(seed)
    free = [c for c in board.cells() if c not in board.blocked and board.target_at(c) is None
            and board.diagonal_at(c) is None and c not in taken]
    cells = rng.sample(free, len(names))
    return {n: board.name(c) for n, c in zip(names, cells, strict=True)}
