"""What a game of Ricochet Robots shows: the view every page, the LEDs and the voice are drawn
from, and the summary history keeps. Pure functions of a :class:`~companion.game_state.State`
(:meth:`companion.game.Game.view` and :meth:`~companion.game.Game.summary` call them)."""

from __future__ import annotations

import copy
import math
from typing import Any

from .board import VORTEX, BoardError
from .game_state import CHIPS, Bid, State, chip_parts
from .rules import Move


def view(s: State, can_undo: bool, now: float | None = None) -> dict[str, Any]:
    """Everything the page and the LEDs show, JSON-able. ``now`` only sets the timer's
    ``remaining``; it does not advance the game."""
    t = s.now if now is None else max(now, s.now)
    r = s.round
    timer: dict[str, Any] = {"running": False, "started_at": None,
                             "duration": float(s.rules.timer_seconds), "remaining": None,
                             "ends_at": None, "run": 0, "runs": s.solo_runs}
    if r is not None and s.phase in ("bidding", "timer", "demonstrating"):
        timer.update(running=r.timer.running, started_at=r.timer.started_at,
                     duration=float(r.timer.duration), ends_at=r.timer.ends_at(),
                     run=r.timer.run,
                     remaining=round(r.timer.remaining(t), 3) if r.timer.run else None)
    order = s.ordered_bids()
    bid_to_meet = None
    demonstrating = r.demonstrator if r is not None and s.phase == "demonstrating" else None
    if r is not None and demonstrating is not None and demonstrating in r.bids:
        bid_to_meet = r.bids[demonstrating].value
    elif s.phase in ("bidding", "timer") and order:
        bid_to_meet = order[0].value
    leader = next((b.seat for b in order if b.status in ("waiting", "demonstrating")), None)
    cost = 0
    if r is not None and r.moves:
        cost = sum(Move.parse(m).cost for m in r.moves)
    return {
        "phase": s.phase,
        "at": s.now if math.isfinite(s.now) else None,
        "players": [_player_view(s, i) for i in range(len(s.players))],
        "solo": s.solo,
        "rules": s.rules.to_spec(),
        "board": s.board.to_dict() if s.board is not None else None,
        "round": r.number if r is not None else len(s.rounds),
        "chip": r.chip if r is not None and s.in_play() else None,
        "target": target_view(s, r.chip) if r is not None else None,
        "timer": timer,
        "bids": [_bid_view(s, b) for b in order],
        "leader": leader,
        "demonstrating": demonstrating,
        "moves": list(r.moves) if r is not None and demonstrating is not None else [],
        "moves_made": len(r.moves) if r is not None and demonstrating is not None else 0,
        "cost": cost if demonstrating is not None else 0,
        "bid_to_meet": bid_to_meet,
        "robots": s.cells(s.robots),
        "snapshot": s.cells(r.snapshot) if r is not None else None,
        "deck": sorted(s.deck, key=CHIPS.index),
        "deck_size": len(s.deck),
        "chips_needed": s.rules.chips_needed(len(s.players)) if s.players else None,
        "rounds": copy.deepcopy(s.rounds),
        "winners": list(s.winners),
        "can_undo": can_undo,
        "verdict": dict(s.verdict) if s.verdict is not None else None,
    }


def summary(s: State) -> dict[str, Any]:
    """What history keeps of this game: players, chips, winners, every finished round."""
    return {
        "players": [p.name for p in s.players],
        "chips": [p.chips for p in s.players],
        "face_up": [len(p.won) for p in s.players],
        "phase": s.phase,
        "winners": list(s.winners),
        "rules": s.rules.to_spec(),
        "rounds": copy.deepcopy(s.rounds),
    }


def _player_view(s: State, seat: int) -> dict[str, Any]:
    p = s.players[seat]
    r = s.round
    bid = r.bids.get(seat) if r is not None and s.in_play() else None
    out = {"seat": seat, "name": p.name, "chips": p.chips, "won": list(p.won),
           "bid": bid.value if bid is not None else None,
           "out": bid is not None and bid.status in ("failed", "withdrawn")}
    if s.solo:
        out.update(face_up=len(p.won), face_down=len(p.face_down),
                   face_down_chips=list(p.face_down))
    return out


def _bid_view(s: State, b: Bid) -> dict[str, Any]:
    return {"seat": b.seat, "name": s.name(b.seat), "value": b.value, "at": b.at,
            "status": b.status}


def target_view(s: State, chip: str) -> dict[str, Any]:
    color, shape = chip_parts(chip)
    out: dict[str, Any] = {"chip": chip, "color": color, "shape": shape, "cell": None,
                           "robot": "any" if shape == VORTEX else color}
    if s.board is not None:
        try:
            t = s.board.target_by(color, shape)
            out["cell"] = s.board.name(t.cell)
        except BoardError:
            pass
    return out
