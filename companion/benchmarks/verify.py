"""Live verification: how fast it decides, and whether its verdicts are right when the
camera misreads.

**Decision latency.** Demonstrations are random legal routes on random real boards (four
robots), looked at every 1, 2 or 3 moves; one more case puts a robot down mid-slide, which the
search must prove no legal sequence explains (the slowest decision). Each observation is timed
on its own, from the call to :meth:`Demonstration.observe` to the events it returns; the first
look of each demonstration (cold slide caches) is part of the sample, as at the table.

**Verdicts under misreadings.** Recorded demonstrations (:func:`recorded_demo`) — honest
successes, over-bids (one move past the bid) and illegal ones (the moving robot put down a
cell short of where its slide stops) — played move by move with a hand over the board between
two moves and the board still for a few frames at each state, through the tracker and the
verifier (``--together``: a row of them with two consecutive moves under one hand, as
players often move a blocker and the arriving robot, :func:`one_hand`), with misreadings
injected as real ones happen (:func:`inject`): a robot standing
still seen on a wrong cell for one or two frames, or for all the frames of a still spell (the
reader makes the same mistake while the picture does not change), or a robot not seen. Two
sources of the per-frame readings: the truth with the injected misreadings (many
demonstrations, fast), and **frames** rendered by :mod:`companion.vision.render` (varied
scenes, every other one under a hard condition: haze, a strong cast, glare, dim bluish
light) and read by the reader, misreadings injected on top of its own; and **3D frames** drawn
by :mod:`companion.vision.render3d` (made apart from the reader's renderer: a random scene,
the camera fixed, a hand between moves), read the same way. Rows: verdicts right,
and false ``illegal`` verdicts (an honest or over-bid demonstration judged illegal) on their
own; goal 0.

``companion bench verify [--demos N] [--judged N] [--frames N] [--frames3d N] [--seed S]
[--together N] [--no-cells] [--learn] [--out PATH]`` (``--learn``: the 3D demonstrations read
with what the reader learns at their start, :mod:`companion.vision.adapt`). The ``--together``
rows are judged three ways: the camera alone; the players, asked at an ``unsure`` end, passing
a hand over the board so that it looks again; and the players answering the page's question
about the readings in doubt truly (:meth:`Demonstration.answer`).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from ..board import Board, tile_names
from ..rules import Goal, Move, Position
from ..verify import DEFAULT_MAX_GAP, Demonstration, finder_for
from ..verify_replay import replay, stable_looks
from . import frame_size, write_report

GOAL_MEDIAN_MS = 50.0
ROBOTS = ("red", "green", "blue", "yellow")
KINDS = ("honest", "over_bid", "illegal")
EXPECTED = {"honest": "success", "over_bid": "over_bid", "illegal": "illegal"}
MISREADS = ("none", "flicker", "spell", "unseen")
STILL = 5  # frames the board holds still at each state (a second at the table's rate)
FRAME_SIZE = (960, 720)


def _board(rnd: random.Random) -> Board:
    tiles = [rnd.choice([t for t in tile_names() if t[0] == q]) for q in "1234"]
    rnd.shuffle(tiles)
    return Board.from_tiles(tiles)


def _position(rnd: random.Random) -> Position:
    board = _board(rnd)
    free = [c for c in board if c not in board.blocked and board.diagonal_at(c) is None
            and board.target_at(c) is None]
    robots = dict(zip(ROBOTS, rnd.sample(free, len(ROBOTS)), strict=True))
    t = rnd.choice([t for t in board.targets if not t.is_vortex])
    return Position(board, robots, Goal(t.cell, t.color, t.color, t.shape))


def _route_looks(p: Position, rnd: random.Random, moves: int, gap: int) -> list[dict[str, int]]:
    """Observations every ``gap`` moves of a random legal route that avoids the target."""
    looks = []
    q = p
    assert p.target is not None
    for k in range(1, moves + 1):
        options = [m for m, s in q.legal_moves() if s.end != p.target.cell]
        q = q.push(rnd.choice(options))
        if k % gap == 0:
            looks.append(dict(q.robots))
    return looks


def _mid_slide(p: Position, rnd: random.Random) -> dict[str, int] | None:
    """The robots with one of them put down a cell short of where a slide really stops."""
    moves = [(m, s) for m, s in p.legal_moves() if len(s.path) >= 3 and not s.deflected]
    if not moves:
        return None
    m, s = rnd.choice(moves)
    cells = dict(p.robots)
    cells[m.robot] = s.path[-2]
    return cells


def _timed(demo: Demonstration, obs: dict[str, int] | None, at: float) -> tuple[float, list]:
    t0 = time.perf_counter()
    events = demo.observe(obs, at)
    return (time.perf_counter() - t0) * 1000.0, events


def measure(demos: int, seed: int, route_moves: int = 9) -> dict[str, Any]:
    rnd = random.Random(seed)
    cases: dict[str, list[float]] = {"gap 1": [], "gap 2": [], "gap 3": [], "illegal": []}
    checked = {"gap 1": 0, "gap 2": 0, "gap 3": 0, "illegal": 0}
    for _ in range(demos):
        p = _position(rnd)
        finder_for.cache_clear()  # each demonstration starts cold, as on a fresh board
        for gap in (1, 2, 3):
            demo = Demonstration(p, bid=30, max_gap=DEFAULT_MAX_GAP)
            at = 0.0
            for obs in _route_looks(p, rnd, route_moves, gap):
                at += 1.0
                ms, events = _timed(demo, obs, at)
                cases[f"gap {gap}"].append(ms)
                moved = sum(1 for e in events if e["type"] == "move")
                if any(e.get("verdict") in ("illegal", "over_bid") for e in events):
                    raise AssertionError(f"a legal route was judged {events[-1]}")
                checked[f"gap {gap}"] += moved
        bad = _mid_slide(p, rnd)
        if bad is not None:
            demo = Demonstration(p, bid=30, max_gap=DEFAULT_MAX_GAP)
            ms, events = _timed(demo, bad, 1.0)
            if any(e.get("verdict") == "illegal" for e in events):
                cases["illegal"].append(ms)
                checked["illegal"] += 1
    rows = {}
    for name, samples in cases.items():
        if not samples:
            continue
        ordered = sorted(samples)
        rows[name] = {
            "looks": len(samples),
            "moves_counted": checked[name] if name != "illegal" else None,
            "median_ms": statistics.median(ordered),
            "p90_ms": ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))],
            "max_ms": ordered[-1],
        }
    return rows


# ---------------------------------------------------------------- verdicts under misreadings


@dataclass
class Recorded:
    """A demonstration as it was played: the start (with its target), the bid, and where the
    robots stood after each look (one move a look), with the robot moved in each."""

    kind: str
    position: Position
    bid: int
    states: list[dict[str, int]]
    movers: list[str]
    together: tuple[int, ...] = ()  # looks never seen on their own: one hand spans two moves

    @property
    def expected(self) -> str:
        return EXPECTED[self.kind]


def _honest(rnd: random.Random) -> tuple[Position, list[Move], list[dict[str, int]]] | None:
    """A random route of 2–5 moves whose last robot ends on a cell made its target, when the
    rules call that route a success in exactly its length (else None: draw again)."""
    p = _position(rnd)
    hero = rnd.choice(ROBOTS)
    length = rnd.randint(2, 5)
    q, route, states = p, [], []
    for k in range(length):
        robot = hero if k == length - 1 or rnd.random() < 0.6 else rnd.choice(ROBOTS)
        options = [m for m, _s in q.legal_moves() if m.robot == robot]
        if not options:
            return None
        m = rnd.choice(options)
        route.append(m)
        q = q.push(m)
        states.append(dict(q.robots))
    start = p.with_target(Goal(q.robots[hero], hero))
    clean = replay(start, length, [(float(k), s) for k, s in enumerate(states, 1)])
    if clean.verdict != "success" or clean.count != length:
        return None
    return start, route, states


def recorded_demo(rnd: random.Random, kind: str) -> Recorded:
    """A recorded demonstration of ``kind`` (see :data:`KINDS`), checked on clean looks to
    get the verdict it should."""
    while True:
        drawn = _honest(rnd)
        if drawn is None:
            continue
        start, route, states = drawn
        movers = [m.robot for m in route]
        if kind == "honest":
            return Recorded(kind, start, len(route), states, movers)
        if kind == "over_bid":
            return Recorded(kind, start, len(route) - 1, states, movers)
        # illegal: at some move, the moving robot is put down a cell short of its stop
        k = rnd.randrange(len(route))
        before = start if k == 0 else start.with_robots(states[k - 1])
        s = before.slide(route[k])
        if len(s.path) < 3 or s.deflected:
            continue
        short = {**(states[k - 1] if k else dict(start.robots)), route[k].robot: s.path[-2]}
        rec = Recorded(kind, start, len(route) + 2, [*states[:k], short], movers[:k + 1])
        looks = [(float(j), st) for j, st in enumerate(rec.states, 1)]
        if replay(start, rec.bid, looks).verdict == "illegal":
            return rec


def one_hand(rec: Recorded, rnd: random.Random) -> Recorded:
    """``rec`` with two consecutive moves made under one hand, as players often move a
    blocker and then the arriving robot: the look between them is never seen. Half the time
    the last two moves, else any two; a recording of one move is left as it is."""
    n = len(rec.states)
    if n < 2:
        return rec
    k = n - 1 if rnd.random() < 0.5 else rnd.randint(1, n - 1)
    before = dict(rec.position.robots) if k == 1 else rec.states[k - 2]
    illegal = rec.kind == "illegal" and k == len(rec.states) - 1
    fewest = _fewest(rec.position.with_robots(before), rec.states[k],
                     DEFAULT_MAX_GAP if illegal else 2)
    # an illegal look stays one no legal moves explain; two moves stay two, never one
    # slide's way nor none (a robot moved twice, or there and back): no one at the table
    # could count them then
    if fewest != (None if illegal else 2):
        return rec
    return replace(rec, together=(k,))


def _fewest(p: Position, robots: dict[str, int], most: int) -> int | None:
    """The fewest legal moves from ``p`` that put the robots on ``robots`` (None: not in
    ``most``)."""
    goal = tuple(sorted(robots.items()))
    seen = {tuple(sorted(p.robots.items()))}
    if goal in seen:
        return 0  # there and back under the hand: nothing to see
    layer = [p]
    for n in range(1, most + 1):
        nxt = []
        for q in layer:
            for m, _s in q.legal_moves():
                r = q.push(m)
                key = tuple(sorted(r.robots.items()))
                if key == goal:
                    return n
                if key not in seen:
                    seen.add(key)
                    nxt.append(r)
        layer = nxt
    return None


class Reading(NamedTuple):
    """One frame's reading, as the tracker takes it."""

    robots: dict[str, str]
    occluded: bool = False


def frames_of(rec: Recorded) -> list[tuple[int, bool]]:
    """The frames of a recording as ``(state index, hand over the board)``: state 0 is the
    start, ``k`` the robots after look ``k``; a hand between two states, then still frames
    (twice as many at the end, where the players look at the result)."""
    out = [(0, False)] * STILL
    for k in range(1, len(rec.states) + 1):
        if k in rec.together:
            continue  # the hand stays over the board for the next move too
        out.append((k, True))
        out += [(k, False)] * STILL
    return out + [(len(rec.states), False)] * STILL  # the players look at the end


def inject(rec: Recorded, readings: list[Reading | str], rnd: random.Random,
           how: str) -> list[Reading | str]:
    """Misread one robot that stands still through one still spell after a move (its first
    :data:`STILL` frames): ``flicker`` on a wrong cell for one or two frames, ``spell`` on a
    wrong cell for the whole spell, ``unseen`` left out for one frame up to the whole spell;
    ``none`` leaves them be."""
    if how == "none" or not rec.states:
        return readings
    board = rec.position.board
    if rec.together:
        shown = [j for j in range(1, len(rec.states) + 1) if j not in rec.together]
        k = rnd.choice(shown)
        before = max((j for j in [0, *shown] if j < k), default=0)
        after = min((j for j in shown if j > k), default=len(rec.movers))
        moving = set(rec.movers[before:after])  # every robot moved under the hands around
    else:
        k = rnd.randint(1, len(rec.states))
        moving = {rec.movers[k - 1]} | ({rec.movers[k]} if k < len(rec.movers) else set())
    still = [r for r in ROBOTS if r not in moving]
    robot = rnd.choice(still)
    spell = [i for i, (s, hand) in enumerate(frames_of(rec)) if s == k and not hand][:STILL]
    if how == "flicker":
        n = rnd.randint(1, 2)
        first = rnd.randrange(len(spell) - n + 1)
        spell = spell[first:first + n]
    elif how == "unseen":
        spell = spell[rnd.randrange(len(spell)):]
    taken = set(rec.states[k - 1].values())
    free = [c for c in board if c not in board.blocked and c not in taken]
    wrong = board.name(rnd.choice(free))
    out = list(readings)
    for i in spell:
        r = out[i]
        if isinstance(r, str) or r.occluded or robot not in r.robots:
            continue
        robots = dict(r.robots)
        if how == "unseen":
            del robots[robot]
        else:
            robots[robot] = wrong
        out[i] = Reading(robots)
    return out


def true_readings(rec: Recorded) -> list[Reading | str]:
    """What a reader that never errs sees in every frame of the recording."""
    board = rec.position.board
    states = [dict(rec.position.robots), *rec.states]
    return [Reading({}, True) if hand else
            Reading({r: board.name(c) for r, c in states[s].items()})
            for s, hand in frames_of(rec)]


def rendered_readings(rec: Recorded, seed: int, size: tuple[int, int] = FRAME_SIZE
                      ) -> list[Any]:
    """Every frame of the recording rendered (one varied scene, for odd seeds a hard one; a
    hand between moves) and read by the game's reader: an Observation, or why the frame
    could not be read."""
    from ..vision.read import Reader, VisionError
    from ..vision.render import Scene, hard_scene, render

    # every other recording under one of the hard conditions (haze, casts, glare, dim blue)
    scene = replace(hard_scene(seed) if seed % 2 else Scene.random(seed, hands=0.0),
                    chip=False)
    reader = Reader(tiles=list(rec.position.board.tiles or ()) or None, read_chip=False)
    states = [dict(rec.position.robots), *rec.states]
    out: list[Any] = []
    for n, (s, hand) in enumerate(frames_of(rec)):
        shot = render(rec.position.with_robots(states[s]), seed=seed, size=size,
                      scene=replace(scene, hands=1 if hand else 0), noise_seed=n)
        try:
            out.append(reader.read(shot.image))
        except VisionError as e:
            out.append(str(e))
    return out


def rendered3d_readings(rec: Recorded, seed: int, size: tuple[int, int] = FRAME_SIZE,
                        learn: bool = False) -> list[Any]:
    """As :func:`rendered_readings`, the frames drawn by :mod:`companion.vision.render3d`
    instead (a 3D scene made apart from the reader's own renderer): one random scene with
    the camera fixed and the board wholly in the picture, a hand (a new one each time)
    between moves. ``learn``: as at the table, the reader learns the table at the confirmed
    start (:mod:`companion.vision.adapt`) from its first frame, and reads on with the
    lesson."""
    from ..vision.adapt import learn_start
    from ..vision.read import Reader, VisionError
    from ..vision.render3d import Scene3D, render3d

    scene = Scene3D.random(seed, hands=0.0, timer=0.0, crop=0.0)
    tiles = list(rec.position.board.tiles or ()) or None
    reader = Reader(tiles=tiles, read_chip=False)
    states = [dict(rec.position.robots), *rec.states]
    board = rec.position.board
    out: list[Any] = []
    for n, (s, hand) in enumerate(frames_of(rec)):
        shot = render3d(rec.position.with_robots(states[s]), seed=seed, size=size,
                        scene=replace(scene, hand=hand, hand_seed=seed * 100 + n))
        if learn and n == 0:
            start = {r: board.name(c) for r, c in states[0].items()}
            try:
                lesson = learn_start([shot.image], start, tiles=tiles, base=reader.profile,
                                     cells=reader.cells or False)
                reader.profile, reader.bars = lesson.profile, dict(lesson.bars)
            except VisionError:
                pass  # no board in the start frame: nothing learnt, the cold reading goes on
        try:
            out.append(reader.read(shot.image))
        except VisionError as e:
            out.append(str(e))
    return out


def judge(rec: Recorded, readings: list[Any], answer: bool = False, reply: bool = False
          ) -> str:
    """The verdict the verifier gives on these per-frame readings (a frame a second).
    ``answer``: players who, asked on the page at an ``unsure`` end, pass a hand over the
    board without moving a robot so that the camera looks again (a hand, then the still
    board read afresh: a misreading of the still spell before the hand is gone). ``reply``:
    players who answer the page's question about the readings in doubt at the end truly
    (:func:`truthful`, :meth:`Demonstration.answer`)."""
    looks = stable_looks((float(t), r) for t, r in enumerate(readings))
    truly = truthful(rec) if reply else None
    judged = replay(rec.position, rec.bid, looks, answers=truly)
    if not answer or judged.verdict != "unsure" or judged.question is None:
        return judged.verdict
    end = true_readings(rec)[-1]
    again = [*readings, Reading({}, True), *[end] * STILL]
    return judge(rec, again, reply=reply)


def truthful(rec: Recorded) -> Any:
    """Players who answer the page's question truly: for each robot asked about (robot → the
    cell seen, the cell believed), whether it stands, at the end of the recording, on the
    cell the camera saw it on (True) or where it is believed to stand (False); a robot on
    neither is left unanswered."""
    end = rec.states[-1] if rec.states else dict(rec.position.robots)

    def answers(asked: dict[str, tuple[int, int]]) -> dict[str, bool]:
        return {n: end[n] == seen for n, (seen, believed) in asked.items()
                if end[n] in (seen, believed)}
    return answers


def verdict_rows(source: str, demos: int, seed: int, size: tuple[int, int] = FRAME_SIZE,
                 learn: bool = False, together: float = 0.0, answer: bool = False,
                 reply: bool = False) -> dict[str, Any]:
    """``demos`` recorded demonstrations of each kind, judged from ``source`` readings
    (``truth``: the truth with misreadings injected; ``frames``: rendered and read;
    ``frames3d``: drawn by the 3D renderer and read). ``together``: the share of them with
    two consecutive moves under one hand (:func:`one_hand`; those drawn with two moves or
    more). ``answer``: the players answer the page's question at an ``unsure`` end by
    passing a hand over the board (:func:`judge`); ``reply``: they answer its question about
    the readings in doubt truly (:func:`truthful`)."""
    if not 0.0 <= together <= 1.0:
        raise ValueError(f"together: a share from 0 to 1, not {together}")
    rnd = random.Random(seed)
    hands = random.Random(seed * 7919 + 1)  # apart, so the demonstrations drawn stay the same
    rows: dict[str, Any] = {}
    for kind in KINDS:
        row = {"demos": 0, "right": 0, "false_illegal": 0, "unsure": 0, "verdicts": {}}
        for d in range(demos):
            rec = recorded_demo(rnd, kind)
            while together and len(rec.states) < 2:
                rec = recorded_demo(rnd, kind)
            if together and hands.random() < together:
                rec = one_hand(rec, hands)
            how = MISREADS[d % len(MISREADS)]
            if source == "frames":
                readings = rendered_readings(rec, seed * 1000 + d, size)
            elif source == "frames3d":
                readings = rendered3d_readings(rec, seed * 1000 + d, size, learn)
            else:
                readings = true_readings(rec)
            verdict = judge(rec, inject(rec, readings, rnd, how), answer, reply)
            row["demos"] += 1
            row["right"] += verdict == rec.expected
            row["false_illegal"] += verdict == "illegal" and kind != "illegal"
            row["unsure"] += verdict == "unsure"
            row["verdicts"][verdict] = row["verdicts"].get(verdict, 0) + 1
        rows[kind] = row
    return rows


def _print_verdicts(title: str, rows: dict[str, Any]) -> None:
    print(title)
    print(f"  {'kind':<10} {'demos':>6} {'verdicts right':>15} {'false illegal':>14} "
          f"{'unsure':>7}  verdicts")
    for kind, r in rows.items():
        seen = ", ".join(f"{v} {n}" for v, n in sorted(r["verdicts"].items()))
        print(f"  {kind:<10} {r['demos']:>6} {r['right']:>9}/{r['demos']:<5} "
              f"{r['false_illegal']:>14} {r['unsure']:>7}  {seen}")
    right = sum(r["right"] for r in rows.values())
    total = sum(r["demos"] for r in rows.values())
    false = sum(r["false_illegal"] for r in rows.values())
    print(f"  {'all':<10} {total:>6} {right:>9}/{total:<5} {false:>14}   goal: 0 false illegal")


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="companion bench verify", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demos", type=int, default=40, help="random demonstrations (40)")
    parser.add_argument("--judged", type=int, default=40,
                        help="demonstrations of each kind judged from true readings with "
                             "misreadings injected (40)")
    parser.add_argument("--together", type=int, default=40,
                        help="demonstrations of each kind with two consecutive moves under "
                             "one hand, judged from true readings with misreadings injected "
                             "(40)")
    parser.add_argument("--frames", type=int, default=4,
                        help="demonstrations of each kind rendered, read and judged (4)")
    parser.add_argument("--frames3d", type=int, default=4,
                        help="demonstrations of each kind drawn by the 3D renderer, read and "
                             "judged (4; skipped with a note where OpenGL is not available)")
    parser.add_argument("--size", default="960x720", help="rendered frame size (960x720)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default="bench-verify.json", help="where to write the JSON")
    parser.add_argument("--no-cells", action="store_true",
                        help="read the rendered frames by the colour scores alone, without "
                             "the cell classifier")
    parser.add_argument("--learn", action="store_true",
                        help="3D frames: learn the table at the start frame, as the table does "
                             "at a confirmed start, and read the demonstration with the lesson")
    args = parser.parse_args(argv)
    if args.demos < 1:
        parser.error("--demos: at least 1")
    if min(args.judged, args.together, args.frames, args.frames3d) < 0:
        parser.error("--judged, --together, --frames and --frames3d: 0 or more")
    w, h = frame_size(parser, args.size)
    from ..vision.read import use_cells

    was = use_cells(not args.no_cells)
    try:
        return _run(args, w, h)
    finally:
        use_cells(was)


def _run(args: argparse.Namespace, w: int, h: int) -> int:
    rows = measure(args.demos, args.seed)
    print(f"verify: decision latency, stable observation in → events out "
          f"({args.demos} demonstrations, seed {args.seed})")
    print(f"{'case':<10} {'looks':>6} {'moves':>6} {'median ms':>10} {'p90 ms':>8} "
          f"{'max ms':>8}  goal: median ≤ {GOAL_MEDIAN_MS:.0f} ms")
    for name, r in rows.items():
        moves = "-" if r["moves_counted"] is None else str(r["moves_counted"])
        ok = "ok" if r["median_ms"] <= GOAL_MEDIAN_MS else "MISSED"
        print(f"{name:<10} {r['looks']:>6} {moves:>6} {r['median_ms']:>10.2f} "
              f"{r['p90_ms']:>8.2f} {r['max_ms']:>8.2f}  {ok}")
    met = all(r["median_ms"] <= GOAL_MEDIAN_MS for r in rows.values())
    judged: dict[str, Any] = {}
    if args.judged:
        judged["truth"] = verdict_rows("truth", args.judged, args.seed)
        _print_verdicts(f"verdicts from true readings with misreadings injected "
                        f"({args.judged} of each kind)", judged["truth"])
    if args.together:
        judged["together"] = verdict_rows("truth", args.together, args.seed, together=1.0)
        _print_verdicts(f"verdicts from true readings, two consecutive moves under one hand, "
                        f"misreadings injected ({args.together} of each kind)",
                        judged["together"])
        judged["answered"] = verdict_rows("truth", args.together, args.seed, together=1.0,
                                          answer=True)
        _print_verdicts(f"the same, the players answering the page's question at an unsure "
                        f"end by passing a hand over the board ({args.together} of each kind)",
                        judged["answered"])
        judged["replied"] = verdict_rows("truth", args.together, args.seed, together=1.0,
                                         reply=True)
        _print_verdicts(f"the same, the players answering the page's question about the "
                        f"readings in doubt truly, yes or no ({args.together} of each kind)",
                        judged["replied"])
    how = "by the colour scores alone" if args.no_cells else "with the cell classifier"
    if args.frames:
        judged["frames"] = verdict_rows("frames", args.frames, args.seed, (w, h))
        _print_verdicts(f"verdicts from rendered frames, hands between moves, misreadings "
                        f"injected ({args.frames} of each kind, {w}×{h}, robots read {how})",
                        judged["frames"])
    if args.frames3d:
        from ..vision.render3d import gl_available

        why = gl_available()
        if why is not None:
            print(f"verdicts from 3D frames: skipped ({why})")
        else:
            judged["frames3d"] = verdict_rows("frames3d", args.frames3d, args.seed, (w, h),
                                              args.learn)
            learnt = ", learnt at the start" if args.learn else ""
            _print_verdicts(f"verdicts from frames of the 3D renderer, a fixed camera, hands "
                            f"between moves, misreadings injected ({args.frames3d} of each "
                            f"kind, {w}×{h}, robots read {how}{learnt})", judged["frames3d"])
    false = sum(r["false_illegal"] for src in judged.values() for r in src.values())
    met = met and false == 0
    report = {
        "benchmark": "verify",
        "goal": {"median_ms": GOAL_MEDIAN_MS},
        "met": met,
        "demos": args.demos,
        "seed": args.seed,
        "max_gap": DEFAULT_MAX_GAP,
        "cells": not args.no_cells,
        "learn": args.learn,
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "cases": rows,
        "verdicts": judged,
        "false_illegal": false,
    }
    return write_report(args.out, report, 0 if met else 1)
