"""Power cuts: the real ``companion run`` is killed (SIGKILL) at random moments of every phase
of play — bidding, the hourglass, each move of a demonstration, the verdict, Micro Robots — and
started again on its journal. After each restart the whole state the page shows (players,
scores, bids, round, the time left within a second, the demonstration's moves so far, the last
verdict) must be the state just before the kill, and the journal must hold no move nobody made.

Also: one journal, one process — a second ``companion run`` on the same journal is refused,
naming the process that has it.

The full run (over 100 kills, ``-m slow``) prints its table; a short run of a few kills is
part of the ordinary suite.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import random
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest

from companion.micro import Layout, Space, example_layout, route_of_length
from companion.rules import Move, Position
from companion.store import Store

ROOT = Path(__file__).resolve().parents[1]
PIN = "864213"
PHASES = ("bidding", "hourglass", "move", "verdict", "micro")
PYCACHE = Path(tempfile.gettempdir()) / "companion-test-pycache"



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db: Path, port: int) -> subprocess.Popen:
    """``companion run`` on ``db``; returns once it serves. Its compiled bytecode is kept
    between starts (outside the checkout), as an installed companion's is, so a restart is
    not spent compiling."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port",
         str(port), "--db", str(db), "--pin", PIN, "--quiet"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "Ctrl-C" in line:
            return proc
    raise AssertionError("companion run did not start:\n" + "".join(lines))


class Api:
    """The referee's page as a script: one session (cookie, CSRF token, the PIN given once).
    It outlives the server's restarts, as a page in a browser does."""

    def __init__(self, base: str, page: str = "/", pin: str | None = PIN) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        html = self.opener.open(base + page).read().decode()
        self.csrf = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
        self.headers: dict[str, str] = {}
        if pin is not None:
            self.post("/api/unlock", {"pin": pin})

    def post(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self.base + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-CSRF-Token": self.csrf, **self.headers})
        try:
            return json.loads(self.opener.open(req, timeout=10).read())
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{path} {body}: {e.code} {e.read()[:300]!r}") from None

    def state(self) -> dict:
        return json.loads(self.opener.open(self.base + "/api/state", timeout=10).read())

    def wait(self, pred, timeout: float = 10.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            s = self.state()
            if pred(s):
                return s
            assert time.monotonic() < end, f"timed out: {s['phase']} {s.get('message')}"
            time.sleep(0.03)


def essence(s: dict) -> dict:
    """What must survive a power cut, as the page shows it (the time left apart)."""
    out = {"game": s.get("game"), "phase": s["phase"], "round": s["round"],
           "players": s["players"], "verdict": s["verdict"], "running": s["timer"]["running"]}
    if s.get("game") == "micro-robots":
        d = s["demonstrating"]
        out.update(robot=s["robot"], start=s["start"], target=s["target"], via=s["via"],
                   landings=d["landings"] if d else None)
    else:
        d = s["demonstrating"]
        out.update(bids=s["bids"], target=s["target"], robots=s["robots"],
                   demo=(d["seat"], d["route"]) if d else None)
    return out


def resumed_at(db: Path) -> float:
    """When (wall clock) the companion last started again on this journal: its ``resume``
    row."""
    with closing(sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)) as conn:
        row = conn.execute("SELECT wall FROM journal WHERE command LIKE '%\"type\":\"resume\"%'"
                           " ORDER BY id DESC LIMIT 1").fetchone()
    return row[0]


def journal_moves(db: Path) -> int:
    """Moves (and Micro Robots landings) in the journal of the game in play."""
    with Store(db, readonly=True) as store:
        n = 0
        for c in store.commands():
            if c["type"] == "move":
                n += 1
            elif c["type"] == "land":
                n += len(c["spaces"]) if "spaces" in c else 1
        return n


class Crasher:
    """Plays on ``companion run`` and kills it at random moments, keeping the tally."""

    def __init__(self, tmp: Path, seed: int) -> None:
        self.db = tmp / "journal.db"
        self.port = free_port()
        self.rng = random.Random(seed)
        self.proc = start(self.db, self.port)
        self.api = Api(f"http://127.0.0.1:{self.port}")
        self.kills: Counter[str] = Counter()
        self.diffs: Counter[str] = Counter()
        self.phantoms: Counter[str] = Counter()
        self.worst_time = 0.0
        self.cap: int | None = None  # kills per phase at most (None: no limit)
        self.notes: list[str] = []

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def kill(self, phase: str) -> dict:
        """A random moment later: note the state, ``kill -9``, start again, compare."""
        if self.cap is not None and self.kills[phase] >= self.cap:
            return self.api.state()
        time.sleep(self.rng.uniform(0.0, 0.35))
        before = self.api.state()
        moves = journal_moves(self.db)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc = start(self.db, self.port)
        first = self.api.state()  # the page's first look after the restart
        time.sleep(0.25)  # the (simulated) camera's first look has reached the table
        after = self.api.state()
        self.kills[phase] += 1
        t0, t1 = before["timer"], first["timer"]
        if t0["running"] and t0["remaining"] is not None:
            # the time left when the companion came back (its hourglass runs again from the
            # moment it journaled its resume: that time is no loss)
            back = (t1["remaining"] or 0.0) + (t1["server_time"] - resumed_at(self.db))
            gap = abs(back - t0["remaining"])
            self.worst_time = max(self.worst_time, gap)
            if gap > 1.0:
                self.diffs[phase] += 1
                self.notes.append(f"{phase}: time left {t0['remaining']} → {back:.3f}")
        for look in (first, after):
            if essence(look) != essence(before):
                self.diffs[phase] += 1
                a, b = essence(before), essence(look)
                self.notes.append(f"{phase}: " + "; ".join(
                    f"{k}: {a[k]!r} → {b[k]!r}" for k in a if a[k] != b.get(k)))
                break
        extra = journal_moves(self.db) - moves
        if extra:
            self.phantoms[phase] += extra
            self.notes.append(f"{phase}: {extra} move(s) journaled after the restart")
        return after

    # -- the classic game
    def new_classic(self) -> None:
        self.api.post("/api/setup", {"players": ["Ann", "Ben", "Cy"], "replace": True,
                                     "rules": {"timer_seconds": 600, "no_bid_seconds": 3000,
                                               "chips_to_win": 17}})

    def slide_somewhere(self, s: dict) -> tuple[str, str]:
        """A slide that moves a robot on the board (the simulated hand's), chosen at random:
        the game judges it (a success, an illegal move, or one more move)."""
        t = s["target"]
        target = {"color": "any", "shape": "vortex"} if t["shape"] == "vortex" else \
            {"color": t["color"], "shape": t["shape"]}
        pos = Position.from_dict({"board": {"tiles": s["board"]["tiles"]},
                                  "robots": s["robots"], "target": target, "rules": s["rules"]})
        options = [(r, d) for r in sorted(s["robots"]) for d in ("up", "down", "left", "right")]
        self.rng.shuffle(options)
        for robot, direction in options:
            step = pos.slide(Move.parse(f"{robot} {direction}"))
            if not step.error and step.end != step.start:
                return robot, direction
        raise AssertionError("no robot can move")

    def classic_round(self, kills: set[str]) -> None:
        """A round: the chip (killed while bidding), two bids and the hourglass (killed while
        it runs), then each bidder's demonstration, slide by slide (killed after each move),
        until a verdict ends it or the player gives up (killed after each verdict)."""
        self.api.post("/api/command", {"type": "reveal"})
        self.api.wait(lambda s: s["phase"] == "bidding")
        if "bidding" in kills:
            self.kill("bidding")
        for seat, value in ((0, 4), (1, 5)):
            self.api.post("/api/command", {"type": "correct",
                                           "bid": {"seat": seat, "value": value}})
        if self.api.state()["phase"] == "bidding":
            self.api.post("/api/command", {"type": "start_timer"})
        self.api.wait(lambda s: s["timer"]["running"])
        if "hourglass" in kills:
            self.kill("hourglass")
        self.api.post("/api/command", {"type": "correct", "timer": 0})
        s = self.api.wait(lambda s: s["phase"] != "timer")
        while s["phase"] == "demonstrating":
            s = self.api.wait(lambda s: s["phase"] != "demonstrating"
                              or not s["demonstrating"]["restoring"])
            if s["phase"] != "demonstrating":
                break
            seat, verdict = s["demonstrating"]["seat"], s["verdict"]
            for _ in range(self.rng.randint(2, 4)):
                count = s["demonstrating"]["count"]
                robot, direction = self.slide_somewhere(s)
                self.api.post("/api/sim/move", {"robot": robot, "direction": direction})
                s = self.api.wait(lambda s, c=count, me=seat: s["phase"] != "demonstrating"
                                  or s["demonstrating"]["seat"] != me
                                  or s["demonstrating"]["count"] > c)
                if s["phase"] != "demonstrating" or s["demonstrating"]["seat"] != seat:
                    break  # a verdict: the target reached, or a move the rules refuse
                if "move" in kills:
                    s = self.kill("move")
            else:
                self.api.post("/api/command", {"type": "give_up", "seat": seat})
            s = self.api.wait(lambda s, v=verdict: s["verdict"] is not None
                              and s["verdict"] != v)
            if "verdict" in kills:
                s = self.kill("verdict")

    # -- Micro Robots
    def new_micro(self) -> None:
        rows = [[x.name for x in row] for row in example_layout().rows]
        self.api.post("/api/layouts", {"name": "Crash table", "rows": rows, "replace": True})
        self.api.post("/api/setup", {"game": "micro-robots", "players": ["Ann", "Ben", "Cy"],
                                     "layout": "Crash table", "replace": True,
                                     "options": {"stall_seconds": 600}})

    def micro_round(self, kills: int) -> int:
        """One round of Micro Robots, killed ``kills`` times at most; returns the kills."""
        done = 0

        def maybe() -> None:
            nonlocal done
            if done < kills:
                self.kill("micro")
                done += 1

        self.api.post("/api/command", {"type": "roll"})
        s = self.api.wait(lambda s: s["phase"] == "round")
        maybe()
        layout = Layout.from_dict(s["layout"])
        route = None
        for n in (3, 4, 2, 5, 6):
            route = route_of_length(layout, Space.parse(s["start"]), Space.parse(s["target"]),
                                    n, Space.parse(s["via"]) if s["via"] else None)
            if route is not None:
                break
        if route is None:
            self.api.post("/api/command", {"type": "reroll"})
            return done
        seat = self.rng.randrange(3)
        self._call(seat, route.moves)
        s = self.api.wait(lambda s: s["phase"] == "demonstrating")
        maybe()
        for i, space in enumerate(route.spaces()[1:], 1):
            self.api.post("/api/sim/micro", {"space": space.name})
            self.api.wait(lambda s, i=i: s["phase"] != "demonstrating"
                          or len(s["demonstrating"]["landings"]) == i)
            if i < route.moves:
                maybe()
        s = self.api.wait(lambda s: s["phase"] in ("round_over", "game_over"))
        assert s["verdict"]["result"] == "success", s["verdict"]
        maybe()
        return done

    def _call(self, seat: int, number: int) -> None:
        """A phone calls for its player (joined with the seat's code, as a phone does)."""
        links = json.loads(self.api.opener.open(self.api.base + "/api/join-links").read())
        code = re.search(r"code=([0-9a-f]+)", links[seat]["url"]).group(1)
        phone = Api(self.api.base, "/pad", pin=None)
        phone.headers["X-Player-Token"] = phone.post("/api/join", {"seat": seat,
                                                                   "code": code})["token"]
        phone.post("/api/call", {"moves": number})

    def table(self) -> str:
        lines = [f"{'phase':10} {'kills':>6} {'differences':>12} {'phantom moves':>14}"]
        for p in PHASES:
            lines.append(f"{p:10} {self.kills[p]:6} {self.diffs[p]:12} {self.phantoms[p]:14}")
        lines.append(f"{'all':10} {sum(self.kills.values()):6} {sum(self.diffs.values()):12} "
                     f"{sum(self.phantoms.values()):14}")
        lines.append(f"largest change of the time left across a restart: "
                     f"{self.worst_time:.2f} s")
        return "\n".join(lines + self.notes[:20])


def crash_run(tmp_path: Path, classic_kills: int, micro_kills: int, seed: int,
              cap: int | None = None) -> Crasher:
    """Rounds of the classic game killed in each phase until ``classic_kills`` kills, then
    Micro Robots rounds until ``micro_kills`` more (``cap``: kills per phase at most)."""
    c = Crasher(tmp_path, seed)
    c.cap = cap
    try:
        c.new_classic()
        while sum(c.kills.values()) < classic_kills:
            if c.api.state()["phase"] == "game_over" or not c.api.state()["deck"]:
                c.new_classic()
            c.classic_round({"bidding", "hourglass", "move", "verdict"})
        c.new_micro()
        done = 0
        while done < micro_kills:
            if c.api.state()["phase"] == "game_over":
                c.new_micro()
            done += c.micro_round(micro_kills - done)
    finally:
        c.close()
    print("\n" + c.table())
    return c


@pytest.mark.slow
def test_a_few_kills_in_every_phase_lose_nothing(tmp_path):
    c = crash_run(tmp_path, classic_kills=1, micro_kills=1, seed=7, cap=1)
    assert all(c.kills[p] for p in PHASES), c.kills
    assert not c.diffs and not c.phantoms, c.table()


@pytest.mark.slow
def test_over_a_hundred_kills_at_random_moments_lose_nothing(tmp_path):
    c = crash_run(tmp_path, classic_kills=80, micro_kills=22, seed=2026)
    assert sum(c.kills.values()) >= 100, c.kills
    assert all(c.kills[p] for p in PHASES), c.kills
    assert not c.diffs and not c.phantoms, c.table()


@pytest.mark.slow  # three real companion processes, one after the other
def test_a_journal_is_opened_by_one_companion_at_a_time(tmp_path):
    db = tmp_path / "journal.db"
    first = start(db, free_port())
    try:
        api = Api(f"http://127.0.0.1:{int(first.args[first.args.index('--port') + 1])}")
        api.post("/api/setup", {"players": ["Ann", "Ben"]})
        with Store(db, readonly=True) as store:
            rows = len(store.commands())
        second = subprocess.run(
            [sys.executable, "-m", "companion.cli", "run", "--host", "127.0.0.1", "--port",
             str(free_port()), "--db", str(db), "--pin", "0000", "--quiet"],
            cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2, second
        assert f"pid {first.pid}" in second.stderr and "in use" in second.stderr
        assert "Traceback" not in second.stderr + second.stdout
        assert (tmp_path / "journal.db.pin").read_text().strip() == PIN  # its PIN untouched
        with Store(db, readonly=True) as store:
            assert len(store.commands()) == rows  # the second wrote nothing
            assert len(store.history()) == 1
        first.send_signal(signal.SIGKILL)  # the lock goes with the process, however it ends
        first.wait()
        third = start(db, free_port())
        third.send_signal(signal.SIGINT)
        third.communicate(timeout=20)
    finally:
        if first.poll() is None:
            first.kill()
