"""The table as every page and phone sees it, and as the LEDs show it: views, never owners.

Pure functions of the game's own view (``Game.view`` / ``MicroGame.view``), the referee's
state and what the loop knows of its edges; the table loop (:mod:`companion.table`) publishes
what they return. The keys are the page's contract (``web/static``): a new key is fine, a
renamed one breaks every open page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .board import Board
from .games import CLASSIC, MICRO
from .micro import Space, check_demonstration
from .referee import CHIP_PHASES, Referee


def board_geometry(board: Board | None) -> dict[str, Any] | None:
    """The board as the page draws it: explicit walls, blocked cells, targets, diagonals."""
    if board is None:
        return None
    explicit = replace(board, tiles=None).to_dict()
    explicit.setdefault("size", board.width)
    explicit["tiles"] = list(board.tiles) if board.tiles else None
    return explicit


def timer_view(now: float, wall: float, running: bool, remaining: float | None,
               total: float | None, ends_at: float | None) -> dict[str, Any]:
    """The hourglass as every page gets it: the seconds left ``now`` (the table's clock), and
    while it runs its ``deadline`` on the server's ``wall`` clock (``server_time`` says when
    this was given), so a page loaded late, or an event replayed to a reconnecting page, shows
    the same time as the rest. ``_ends_at`` (on the table's clock) is the loop's, never
    shown."""
    end = ends_at if running and ends_at is not None else None
    deadline = None
    if end is not None:
        remaining = round(max(0.0, end - now), 3)
        deadline = round(wall + remaining, 3)
    return {"running": running, "remaining": remaining, "total": total,
            "deadline": deadline,
            "server_time": round(wall, 3), "_ends_at": end}


def _bids(bids: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"seat": b["seat"], "name": b["name"], "moves": b["value"],
             "status": b["status"], "out": b["status"] in ("failed", "withdrawn")}
            for b in bids]


def classic_state(gv: dict[str, Any], referee: Referee, *, seq: int, epoch: str,
                  timer: dict[str, Any], verdict: dict[str, Any] | None,
                  board: dict[str, Any] | None, solving: bool,
                  edges: dict[str, Any]) -> dict[str, Any]:
    """The published state of the classic game. ``gv``: the game's view now; ``timer``: its
    :func:`timer_view`; ``board``: the :func:`board_geometry`; ``edges``: what the page shows
    of the table's edges (``sim``, ``buttons``, ``dial``, ``camera``, ``devices``)."""
    phase = gv["phase"]
    rnd = gv["round"]
    demo = None
    if gv["demonstrating"] is not None:
        seat = gv["demonstrating"]
        demo = {"seat": seat, "name": gv["players"][seat]["name"], "bid": gv["bid_to_meet"],
                "moves": gv["cost"], "count": gv["moves_made"], "route": gv["moves"],
                # the camera has not yet seen the board put back for this bidder
                "restoring": referee.pending_demo is not None}
    optimal = referee.optimal
    show = (optimal is not None and optimal.get("round") == rnd
            and phase in ("round_over", "game_over"))
    bids = _bids(gv["bids"])
    if phase in ("round_over", "game_over") and gv["rounds"]:
        # the finished round's bids stay on the screen until the next chip
        bids = _bids(gv["rounds"][-1]["bids"])
    robots = gv["robots"]
    if referee.seen and phase != "demonstrating":
        robots = {**robots, **referee.seen}
    return {
        "seq": seq,
        "epoch": epoch,
        "phase": phase,
        "round": rnd,
        "players": gv["players"],
        "target": gv["target"] if phase not in ("setup", "idle") else None,
        "timer": timer,
        "bids": bids,
        "leader": gv["leader"],
        "demonstrating": demo,
        "verdict": verdict,
        "board": board,
        "robots": robots,
        # The solution stays on the table until the round is over: every phone reads this.
        "optimal": optimal if show else None,
        "optimal_known": bool(optimal and optimal.get("round") == rnd),
        "show_optimal": show,
        "solving": solving,
        "message": referee.message,
        # the camera's question while it is open: the robots asked about, seen where and
        # believed where, for the players watching to answer
        "question": referee.question.shown(),
        "rules": gv["rules"],
        "solo": gv["solo"],
        "deck_size": gv["deck_size"],
        "chips_needed": gv["chips_needed"],
        "winners": gv["winners"],
        "can_undo": gv["can_undo"],
        **edges,
        "game": CLASSIC,
        "proposal": referee.micro_rulings.proposal is not None,
        # what the camera sees on the centre piece while the game waits for a chip, and
        # the chips a player may pick by hand
        "chip_seen": referee.chip_seen if phase in CHIP_PHASES else None,
        "deck": gv["deck"],
    }


def micro_state(v: dict[str, Any], referee: Referee, *, seq: int, epoch: str,
                timer: dict[str, Any], verdict: dict[str, Any] | None,
                edges: dict[str, Any]) -> dict[str, Any]:
    """The published state of a Micro Robots game: what every page and phone shows. The
    round's answer (shortest route, possible counts) is in ``last_round`` only once that
    round is over. ``timer`` is the stall hourglass's :func:`timer_view`, the same shape as
    the classic timer, so the hourglass is drawn alike."""
    phase = v["phase"]
    demo = v["demonstration"]
    last = v["rounds"][-1] if v["rounds"] and phase in ("round_over", "game_over") else None
    return {
        "seq": seq,
        "epoch": epoch,
        "game": MICRO,
        "phase": phase,
        "round": v["round"],
        "players": v["players"],
        "roller": v["roller"],
        "roller_name": None if v["roller"] is None else v["players"][v["roller"]]["name"],
        "layout": v["layout"],
        "start": v["start"],
        "target": v["target"],
        "via": v["via"],
        "robot": v["robot"],
        "seen": referee.micro_rulings.seen,
        "timer": timer,
        "demonstrating": demo,
        "verdict": verdict,
        "last_round": last,
        "rounds_played": len(v["rounds"]),
        "vp_to_win": v["options"]["vp_to_win"],
        "chips": v["options"]["chips"],
        "chips_in_supply": v["chips_in_supply"],
        "chip_on_target": v["chip_on_target"],
        "options": v["options"],
        "winners": v["winners"],
        "end_reason": v["end_reason"],
        "can_undo": v["can_undo"],
        "message": referee.message,
        "proposal": referee.micro_rulings.proposal is not None,
        "board": None,
        "bids": [],
        **edges,
    }


def _outcome(verdict: dict[str, Any] | None) -> str | None:
    if verdict is None:
        return None
    return "success" if verdict["result"] == "success" else "failure"


def lights_view(view: dict[str, Any], verdict: dict[str, Any] | None) -> dict[str, Any]:
    """What the LEDs show of the classic game: its view, with the mode, the easy timer and
    the verdict's outcome."""
    view.update(mode="solo" if view.get("solo") else "multi",
                easy=view["timer"].get("runs") == 2, verdict=_outcome(verdict))
    return view


def micro_lights_view(v: dict[str, Any], verdict: dict[str, Any] | None) -> dict[str, Any]:
    """What the LEDs show in Micro Robots: the stall hourglass as the timer, the caller as
    the demonstrator (her button is done / give up), her called number on the display."""
    stall, demo = v["stall"], v["demonstration"]
    return {"game": MICRO, "mode": "multi", "phase": v["phase"], "verdict": _outcome(verdict),
            "timer": {"running": stall["ends_at"] is not None,
                      "started_at": stall["since"], "duration": stall["seconds"],
                      "remaining": stall["remaining"]},
            "leader": None, "players": v["players"],
            "demonstrating": demo["seat"] if demo else None,
            "bid_to_meet": demo["number"] if demo else None}


# ---------------------------------------------------------------- the verdict


def classic_verdict(v: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The last demonstration's verdict as the page shows it, from the classic game's own
    (journaled) record of it (``Game.s.verdict``)."""
    if v is None:
        return None
    if v["success"]:
        return {"result": "success", "seat": v["seat"], "name": v["name"],
                "reason": f"{v['moves']} moves, bid {v['bid']}", "by": v["by"],
                "moves": v["moves"], "bid": v["bid"]}
    return {"result": v["result"], "seat": v["seat"],
            "name": v["name"], "reason": v["reason"], "by": v["by"], "bid": v.get("bid")}


def micro_verdict(s: Any) -> dict[str, Any] | None:
    """The verdict of the Micro Robots round just finished (from the game's record of it,
    ``MicroGame.s``), shown until the next roll."""
    if s.phase not in ("round_over", "game_over") or not s.rounds:
        return None
    r = s.rounds[-1]
    if r["success"]:
        return {"result": "success", "seat": r["seat"], "name": r["name"],
                "number": r["number"], "landings": list(r["landings"]),
                "reason": f"exactly {r['number']} moves", "by": r["by"]}
    if r["by"] == r["seat"]:
        result = "gave_up"
    else:
        start, target, via = (Space.parse(r[k]) if r[k] else None
                              for k in ("start", "target", "via"))
        seen = check_demonstration(s.layout, start, target, r["number"],  # type: ignore[arg-type]
                                   [Space.parse(x) for x in r["landings"]], via, False)
        result = "illegal" if seen.illegal_move is not None else "failure"
    return {"result": result, "seat": r["seat"], "name": r["name"], "number": r["number"],
            "landings": list(r["landings"]), "reason": r["reason"] or "", "by": r["by"],
            "chip_to": r["chip_to_name"]}


# ---------------------------------------------------------------- history


def plays(summary: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each finished round of a game as History charts it: the optimum and every bid."""
    out = []
    for r in summary.get("rounds", []):
        bids = [{"name": b.get("name"), "value": b.get("value")} for b in r.get("bids") or []
                if isinstance(b, Mapping) and isinstance(b.get("value"), int)]
        out.append({"round": r.get("round"), "optimum": r.get("optimum"), "bids": bids,
                    "winner": r.get("winner_name")})
    return out


def history(games: list[dict[str, Any]], stats: Mapping[str, Mapping[str, Any]],
            practice: list[dict[str, Any]]) -> dict[str, Any]:
    """Every game on the table (the journal's ``history``), each player's record (its
    ``player_stats``) best first, and the practice puzzles solved, as History shows them."""
    listed = [{**{k: v for k, v in g.items() if k != "summary"}, "plays": plays(g["summary"])}
              for g in games]
    players = [{"name": name, **st} for name, st in stats.items()]
    players.sort(key=lambda p: (-p["games_won"], -p["chips"], p["name"]))
    return {"games": listed, "players": players, "practice": practice}


def unjournaled_history(s: Mapping[str, Any], practice: list[dict[str, Any]]) -> dict[str, Any]:
    """History of a table with no journal: the game in play (its ``summary``), if it has
    players, and the practice puzzles solved."""
    games = [{"id": 1, "game": s.get("game", CLASSIC), "started": None, "ended": None,
              "status": "playing", "rules": s["rules"], "players": s["players"],
              "chips": s["chips"],
              "winners": [s["players"][i] for i in s["winners"]],
              "rounds": len(s["rounds"]), "plays": plays(s)}] if s["players"] else []
    return {"games": games, "players": [], "practice": list(practice)}
