"""The referee's corrections: a chip awarded or taken back, a bid put right, the time left, the
robots, the round's snapshot, a name, the board, a demonstration's moves with some taken back
(the camera's, when it finds it counted a misreading) (the ``correct`` command of
:class:`companion.game.Game`).

A correction changes exactly one thing, says who made it (``by``) and may say why
(``reason``); its event ``corrected`` carries what changed. It goes on the undo stack like any
command, and the game goes on from the corrected state as if it had always been so (a bid
corrected while the timer has not started starts it; a chip awarded may end the game).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .board import Board
from .game_course import Course
from .game_state import MAX_BID, Bid, Command, Event, GameError, State, parse_chip
from .i18n import Message


def correct(s: State, cmd: Command, at: float) -> list[Event]:
    if s.phase == "setup":
        raise GameError(Message("refuse.not_set_up"))
    kinds = ("award", "revoke", "bid", "timer", "robots", "snapshot", "name", "board", "moves")
    given = [k for k in kinds if k in cmd]
    if len(given) != 1:
        raise GameError(f"a correction changes exactly one of: {', '.join(kinds)}")
    by = cmd.get("by")
    if by is None or by == "" or isinstance(by, bool) or not isinstance(by, str | int):
        raise GameError("a correction says who made it ('by')")
    what = given[0]
    value = cmd[what]
    base = {"type": "corrected", "at": at, "what": what, "by": by,
            "reason": cmd.get("reason")}
    return _BY_WHAT[what](s, value, at, base)


def _award(s: State, value: Any, at: float, base: Event) -> list[Event]:
    r = s.round
    if not isinstance(value, Mapping):
        raise GameError("award: {\"seat\": n} and optionally the \"chip\"")
    seat = s.seat(value)
    in_play = r is not None and s.phase in ("bidding", "timer", "demonstrating")
    chip = parse_chip(value["chip"]) if value.get("chip") is not None else None
    if in_play and r is not None and (chip is None or chip == r.chip):
        if s.phase != "demonstrating":
            r.queue = [b.seat for b in sorted(r.bids.values(), key=s.bid_key)]
        r.demonstrator = seat
        if seat in r.bids:
            r.bids[seat].status = "demonstrating"
        s.phase = "demonstrating"
        return [{**base, "seat": seat, "chip": r.chip}] + Course(s).succeed(
            at, base["by"], list(r.moves))
    if chip is None:
        if not s.rounds or s.rounds[-1]["chip"] not in s.deck:
            raise GameError("award: say which chip")
        chip = s.rounds[-1]["chip"]
    if chip not in s.deck:
        raise GameError(f"award: the {chip} chip is not in the deck")
    if s.solo:
        raise GameError("award: in solo play, revoke the face-down chip and award it "
                        "during its round")
    s.deck.remove(chip)
    s.players[seat].won.append(chip)
    events: list[Event] = [{**base, "seat": seat, "chip": chip},
                           {"type": "chip_won", "at": at, "seat": seat,
                            "name": s.name(seat), "chip": chip, "face": "up"}]
    for rec in reversed(s.rounds):
        if rec["chip"] == chip and rec["winner"] is None:
            rec["winner"], rec["winner_name"] = seat, s.name(seat)
            break
    return events + Course(s).check_game_over(at)


def _revoke(s: State, value: Any, at: float, base: Event) -> list[Event]:
    if not isinstance(value, Mapping) or value.get("chip") is None:
        raise GameError("revoke: {\"seat\": n, \"chip\": \"red circle\"}")
    seat = s.seat(value)
    chip = parse_chip(value["chip"])
    p = s.players[seat]
    if chip in p.won:
        p.won.remove(chip)
    elif chip in p.face_down:
        p.face_down.remove(chip)
    else:
        raise GameError(f"revoke: {p.name} does not have the {chip} chip")
    s.deck.insert(s.rng.randrange(len(s.deck) + 1), chip)
    for rec in reversed(s.rounds):
        if rec["chip"] == chip and rec["winner"] == seat:
            rec["winner"], rec["winner_name"] = None, None
            break
    events: list[Event] = [{**base, "seat": seat, "chip": chip},
                           {"type": "chip_returned", "at": at, "chip": chip,
                            "reason": "revoked by the referee"}]
    return events + Course(s).check_game_over(at)


def _bid(s: State, value: Any, at: float, base: Event) -> list[Event]:
    r = s.round
    if not isinstance(value, Mapping):
        raise GameError("bid: {\"seat\": n, \"value\": moves or null}")
    seat = s.seat(value)
    if r is None or s.phase not in ("bidding", "timer", "demonstrating"):
        raise GameError("bid: no round is being played")
    n = value.get("value")
    old = r.bids.get(seat)
    if s.phase == "demonstrating" and (seat == r.demonstrator
                                       or (old is not None and old.status != "waiting")):
        raise GameError(f"bid: {s.name(seat)}'s bid has been demonstrated already")
    if n is None:
        if old is None:
            raise GameError(f"bid: {s.name(seat)} has no bid")
        del r.bids[seat]
        if seat in r.queue:
            r.queue.remove(seat)
    else:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_BID:
            raise GameError(f"bid: a number of moves from 1 to {MAX_BID}, not {n!r}")
        s.seq += 1
        r.bids[seat] = Bid(seat, n, old.at if old and old.value == n else at, s.seq)
        if s.phase == "demonstrating":
            done = [q for q in r.queue if r.bids.get(q) and r.bids[q].status != "waiting"]
            waiting = sorted((b for b in r.bids.values() if b.status == "waiting"),
                             key=s.bid_key)
            r.queue = done + [b.seat for b in waiting]
    events: list[Event] = [{**base, "seat": seat, "value": n,
                            "previous": old.value if old else None}]
    if s.phase == "bidding" and r.bids and not s.solo:
        events += Course(s).start_timer(at, "first_bid")
    return events


def _timer(s: State, value: Any, at: float, base: Event) -> list[Event]:
    r = s.round
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise GameError("timer: the seconds left, a number from 0")
    if r is None or s.phase not in ("timer", "demonstrating") or not r.timer.run:
        raise GameError("timer: the timer is not running")
    if value > r.timer.duration:
        raise GameError(f"timer: at most {r.timer.duration:g} seconds")
    r.timer.used = r.timer.duration - float(value)
    if r.timer.running:
        r.timer.started_at = at
    return [{**base, "remaining": float(value)}] + Course(s).advance(at)


def _robots(s: State, value: Any, at: float, base: Event) -> list[Event]:
    robots = s.parse_robots(value)
    s.robots = robots
    r = s.round
    if r is not None and s.phase in ("bidding", "timer"):
        r.snapshot = dict(robots)
    return [{**base, "robots": s.cells(robots)}]


def _snapshot(s: State, value: Any, at: float, base: Event) -> list[Event]:
    r = s.round
    if r is None or s.phase not in ("bidding", "timer", "demonstrating"):
        raise GameError("snapshot: no round is being played")
    r.snapshot = s.parse_robots(value, "snapshot")
    if s.phase != "demonstrating" or not r.moves:
        s.robots = dict(r.snapshot)
    return [{**base, "snapshot": s.cells(r.snapshot)}]


def _name(s: State, value: Any, at: float, base: Event) -> list[Event]:
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str) \
            or not value["name"].strip():
        raise GameError("name: {\"seat\": n, \"name\": \"Anna\"}")
    seat = s.seat(value)
    name = value["name"].strip()
    if any(p.name.casefold() == name.casefold() for i, p in enumerate(s.players)
           if i != seat):
        raise GameError(f"name: another player is called {name}")
    old = s.players[seat].name
    s.players[seat].name = name
    return [{**base, "seat": seat, "name": name, "previous": old}]


def _board(s: State, value: Any, at: float, base: Event) -> list[Event]:
    if s.phase == "demonstrating":
        raise GameError("board: not during a demonstration")
    board = Board.from_dict(value)
    robots = s.cells(s.robots)  # named on the old board, placed on the new one
    snapshot = s.cells(s.round.snapshot) if s.round is not None else {}
    s.board = board
    s.robots = s.parse_robots(robots) if robots else {}
    if s.round is not None:
        s.round.snapshot = s.parse_robots(snapshot, "snapshot") if snapshot else {}
    return [{**base, "board": board.to_dict()}]

def _moves(s: State, value: Any, at: float, base: Event) -> list[Event]:
    """The demonstration's moves with some taken back (the camera found them a misreading): the
    moves left, in their order, must be legal and not yet a success."""
    r = s.round
    if r is None or r.demonstrator is None or s.phase != "demonstrating":
        raise GameError("moves: no demonstration is going on")
    if not isinstance(value, list) or not all(isinstance(m, str) for m in value):
        raise GameError("moves: the moves left, like [\"blue up\", \"red left\"]")
    left = iter(r.moves)
    if not all(any(m == made for made in left) for m in value):
        raise GameError("moves: only moves made can be kept, in the order they were made")
    result = s.judge(list(value))
    if not result.legal:
        raise GameError(Message("fail.illegal", name=s.name(r.demonstrator),
                                why=result.reason))
    if result.reached and result.meets_bid:
        raise GameError("moves: the moves left would be a success; say so with a verdict")
    taken = len(r.moves) - len(value)
    r.moves = list(value)
    s.robots = dict(result.robots)
    return [{**base, "moves": list(value), "taken_back": taken, "cost": result.cost}]


_BY_WHAT: dict[str, Callable[[State, Any, float, Event], list[Event]]] = {
    "award": _award, "revoke": _revoke, "bid": _bid, "timer": _timer, "robots": _robots,
    "snapshot": _snapshot, "name": _name, "board": _board, "moves": _moves,
}
