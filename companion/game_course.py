"""How a game of Ricochet Robots runs its course: what the clock and the verdicts do to its
:class:`~companion.game_state.State`.

:class:`companion.game.Game` reads a command and decides whether it stands; what happens next
on its own (the no-bid timeout, the timer running out, the next demonstrator, a chip won or
returned, the end of the round and of the game) and a new game's set-up are a :class:`Course`
of the state, so the commands and the referee's corrections (:mod:`companion.corrections`)
move one state the same way. Each change returns the events it caused. Pure, like the game.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from typing import Any

from .board import Board
from .game_state import (
    CHIPS,
    MAX_PLAYERS,
    Command,
    Event,
    Failure,
    GameError,
    Player,
    State,
    Timer,
    parse_chip,
)
from .i18n import Message
from .rules import Rules


class Course:
    """The changes the clock and the verdicts make to the state ``s`` (which the game may
    swap for a copy on undo: a course is made for the state in hand, and holds nothing else).

    >>> s = State()
    >>> Course(s).advance(5.0), s.now
    ([], 5.0)
    """

    def __init__(self, s: State) -> None:
        self.s = s

    def advance(self, now: float) -> list[Event]:
        s = self.s
        events: list[Event] = []
        now = max(now, s.now)
        while True:
            r = s.round
            if r is None:
                break
            if s.phase == "bidding" and not s.solo:
                due = r.revealed_at + s.rules.no_bid_seconds
                if due > now:
                    break
                events += self.start_timer(due, "no_bid")
                continue
            if s.phase == "timer":
                end = r.timer.ends_at()
                if end is None or end > now:
                    break
                events += self.timer_end(end)
                continue
            break
        s.now = now
        return events

    def start_timer(self, at: float, reason: str) -> list[Event]:
        r = self.s.round
        assert r is not None
        r.timer = Timer(float(self.s.rules.timer_seconds), at, 0.0, True, r.timer.run + 1)
        self.s.phase = "timer"
        self.s.now = max(self.s.now, at)
        return [{"type": "timer_started", "at": at, "reason": reason,
                 "duration": r.timer.duration, "ends_at": r.timer.ends_at(), "run": r.timer.run}]

    def timer_end(self, at: float) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        r.timer.used = r.timer.duration
        r.timer.running = False
        s.now = max(s.now, at)
        events: list[Event] = [{"type": "timer_ended", "at": at, "run": r.timer.run}]
        if s.solo:
            if r.timer.run < s.solo_runs:
                return events + self.start_timer(at, "second_run")
            s.players[0].face_down.append(r.chip)
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self.s.name(0),
                           "chip": r.chip, "face": "down"})
            return events + self.end_round(at, None)
        if not r.bids:
            return events + self.return_chip(at, "nobody bid")
        r.queue = [b.seat for b in sorted(r.bids.values(), key=self.s.bid_key)]
        s.phase = "demonstrating"
        return events + self.next_demonstrator(at)

    def next_demonstrator(self, at: float) -> list[Event]:
        r = self.s.round
        assert r is not None
        for seat in r.queue:
            b = r.bids[seat]
            if b.status == "waiting":
                b.status = "demonstrating"
                r.demonstrator = seat
                r.moves = []
                return [{"type": "demonstration_started", "at": at, "seat": seat,
                         "name": self.s.name(seat), "bid": b.value}]
        r.demonstrator = None
        return self.return_chip(at, "no demonstration succeeded")

    def return_chip(self, at: float, reason: str) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        s.deck.insert(s.rng.randrange(len(s.deck) + 1), r.chip)
        events: list[Event] = [{"type": "chip_returned", "at": at, "chip": r.chip,
                                "reason": reason}]
        return events + self.end_round(at, None)

    def end_round(self, at: float, winner: int | None,
                   route: list[str] | None = None) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None
        record = {
            "round": r.number, "chip": r.chip, "winner": winner,
            "winner_name": self.s.name(winner) if winner is not None else None,
            "bids": [{"seat": b.seat, "name": self.s.name(b.seat), "value": b.value,
                      "status": b.status} for b in sorted(r.bids.values(), key=self.s.bid_key)],
            "optimum": r.optimum, "revealed_at": r.revealed_at, "ended_at": at,
            "route": list(route) if route else None,
        }
        if s.solo:
            record["face"] = "up" if winner is not None else "down"
            record["hint"] = r.hint
        s.rounds.append(record)
        s.phase = "round_over"
        r.timer.running = False
        r.demonstrator = None
        events: list[Event] = [{"type": "round_over", "at": at, **copy.deepcopy(record)}]
        return events + self.check_game_over(at)

    def check_game_over(self, at: float) -> list[Event]:
        s = self.s
        needed = s.rules.chips_needed(len(s.players))
        top = max(p.chips for p in s.players)
        chip_in_play = s.round is not None and self.s.in_play()
        if s.solo:
            over = not s.deck and not chip_in_play
            up, down = len(s.players[0].won), len(s.players[0].face_down)
            s.winners = [0] if over and up > down else []
        else:
            over = top >= needed or (not s.deck and not chip_in_play)
            s.winners = [i for i, p in enumerate(s.players) if p.chips == top] if over else []
        if not over:
            if s.phase == "game_over":
                s.phase = "round_over" if s.rounds else "idle"
            return []
        s.phase = "game_over"
        return [{"type": "game_over", "at": at, "winners": list(s.winners),
                 "names": [self.s.name(i) for i in s.winners],
                 "scores": [p.chips for p in s.players]}]

    def succeed(self, at: float, by: Any, route: list[str]) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        if bid is not None:
            bid.status = "succeeded"
        events: list[Event] = [{"type": "demonstration_succeeded", "at": at, "seat": seat,
                                "name": self.s.name(seat),
                                "bid": bid.value if bid is not None else None,
                                "moves": len(route), "route": list(route), "by": by}]
        s.verdict = {"success": True, "seat": seat, "name": self.s.name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(route),
                     "reason": None, "by": by}
        s.players[seat].won.append(r.chip)
        events.append({"type": "chip_won", "at": at, "seat": seat, "name": self.s.name(seat),
                       "chip": r.chip, "face": "up"})
        return events + self.end_round(at, seat, route)

    def fail(self, at: float, reason: str, by: Any, result: Failure) -> list[Event]:
        s, r = self.s, self.s.round
        assert r is not None and r.demonstrator is not None
        seat = r.demonstrator
        bid = r.bids.get(seat)
        s.verdict = {"success": False, "seat": seat, "name": self.s.name(seat),
                     "bid": bid.value if bid is not None else None, "moves": len(r.moves),
                     "reason": reason, "by": by, "result": result.value}
        events: list[Event] = [{"type": "demonstration_failed", "at": at, "seat": seat,
                                "name": self.s.name(seat),
                                "bid": bid.value if bid is not None else None,
                                "reason": reason, "by": by, "route": list(r.moves)}]
        if s.robots != r.snapshot:
            s.robots = dict(r.snapshot)
            events.append({"type": "robots_reset", "at": at, "robots": self.s.cells(s.robots)})
        r.moves = []
        r.demonstrator = None
        if s.solo:
            # The solo player may keep looking while her hourglass has sand left.
            r.bids.clear()
            left = r.timer.remaining(at)
            if left > 0:
                r.timer.started_at, r.timer.running = at, True
                s.phase = "timer"
                events.append({"type": "timer_resumed", "at": at, "remaining": left,
                               "ends_at": r.timer.ends_at()})
                return events
            s.players[0].face_down.append(r.chip)
            events.append({"type": "chip_won", "at": at, "seat": 0, "name": self.s.name(0),
                           "chip": r.chip, "face": "down"})
            return events + self.end_round(at, None)
        if bid is not None:
            bid.status = "failed"
        return events + self.next_demonstrator(at)

    def set_up(self, cmd: Command, at: float, rng: random.Random) -> list[Event]:
        """Seat the players and lay out the game ``setup`` describes; ``rng`` draws a seed
        when the command brings none."""
        known = {"type", "at", "players", "rules", "board", "robots", "seed", "deck", "solo_runs"}
        extra = sorted(set(cmd) - known)
        if extra:
            raise GameError(f"setup: unknown field {extra[0]!r}")
        s = self.s
        raw_players = cmd.get("players")
        if not isinstance(raw_players, list) or not raw_players:
            raise GameError("setup: players is a list of names in clockwise seat order")
        names: list[str] = []
        for p in raw_players:
            name = p.get("name") if isinstance(p, Mapping) else p
            if not isinstance(name, str) or not name.strip():
                raise GameError(f"setup: {p!r} is not a player's name")
            name = name.strip()
            if name.casefold() in (n.casefold() for n in names):
                raise GameError(Message("refuse.same_name", name=name))
            names.append(name)
        if len(names) > MAX_PLAYERS:
            raise GameError(f"setup: at most {MAX_PLAYERS} players, not {len(names)}")
        rules = Rules.from_spec(cmd.get("rules"))
        if rules.preset == "micro-robots":
            raise GameError("setup: Micro Robots has its own board and scoring; "
                            "choose a Ricochet Robots edition")
        if len(names) == 1 and not rules.solo:
            raise GameError(f"setup: {rules.preset} has no solo play; play it with two or more, "
                            "or choose abacus-2013")
        solo_runs = cmd.get("solo_runs", 1)
        if solo_runs not in (1, 2) or isinstance(solo_runs, bool):
            raise GameError("setup: solo_runs is 1, or 2 for the easy solo game")
        seed = cmd.get("seed")
        if seed is None:
            seed = rng.getrandbits(32)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise GameError(f"setup: seed is a whole number, not {seed!r}")
        s.players = [Player(n) for n in names]
        s.rules = rules
        s.seed = seed
        s.solo_runs = solo_runs
        s.rng = random.Random(seed)
        s.board = Board.from_dict(cmd["board"]) if cmd.get("board") is not None else None
        deck = list(CHIPS)
        s.rng.shuffle(deck)
        if cmd.get("deck") is not None:
            order = cmd["deck"]
            if not isinstance(order, list):
                raise GameError("setup: deck is a list of chips, top first")
            parsed = [parse_chip(c) for c in order]
            if sorted(parsed) != sorted(CHIPS):
                raise GameError("setup: the deck must hold each of the 17 chips exactly once")
            deck = parsed
        s.deck = deck
        s.robots = self.s.parse_robots(cmd["robots"]) if cmd.get("robots") else {}
        s.phase = "idle"
        s.now = max(s.now, at)
        return [{"type": "game_set_up", "at": at, "players": names, "rules": rules.to_spec(),
                 "seed": seed, "deck_size": len(deck), "solo": s.solo, "solo_runs": solo_runs,
                 "robots": self.s.cells(s.robots)}]
