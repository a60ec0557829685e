"""The journal: every accepted command, on disk before it is acknowledged; history of past games.

A :class:`Store` owns one game and one SQLite file (WAL mode, ``synchronous=FULL``: each
command is its own transaction, synced to disk before :meth:`Store.apply` returns). Opening the
store replays the journal of the current game, so a table that lost power is exactly where it
was: scores, round, bids, the demonstration so far.

The game is a classic :class:`companion.game.Game` or a Micro Robots
:class:`companion.micro.MicroGame`. A ``setup`` or ``new_game`` command says which with
``"game": "micro-robots"`` (no ``game``: the classic game, as in every journal written before
Micro Robots); the store keeps that key in the journaled command, so the first row of each game
says which game replays it. Choosing the other game is always a new game in the journal.

Time spent powered off does not count. The game runs on the caller's monotonic clock, which
restarts with the machine; on opening, the store journals a ``resume`` command at the new
clock's time, and the game shifts every time it keeps, so the timer resumes with the seconds it
had left at the last journaled moment. While the timer (or the soft no-bid timeout) runs,
:meth:`Store.advance` journals a ``tick`` every ``heartbeat`` seconds, and whenever time itself
changes the game (the timer running out), so at most ``heartbeat`` seconds are handed back
after a power cut. A refused command whose time made the timer run out journals a ``tick`` too.

The caller must handle :class:`JournalError` from :meth:`Store.apply` (the disk refused the
write; the game stays at the journal's state) and show it: that command did not happen.

A damaged file is never written to: :class:`JournalError` says what is wrong, and
:func:`recover` copies the intact prefix of the journal into a new file beside it.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import sqlite3
import threading
import time
import unicodedata
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import CompanionError
from .game import Event, Game, GameError
from .games import (
    CLASSIC,
    GAMES,
    MICRO,
    command_kind,
    engine_command,
    game_kind,
    replay_game,
    running,
)
from .micro import Layout, LayoutError

FORMAT = "ricochet-journal/1"
APP_NAME = "ricochet-companion"
DB_NAME = "journal.db"
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,          -- wall-clock seconds (UTC epoch)
    ended REAL,                     -- when a new game replaced it
    summary TEXT                    -- JSON from Game.summary() once the game is closed
);
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY,
    game INTEGER NOT NULL REFERENCES games(id),
    wall REAL NOT NULL,             -- wall-clock seconds when it was accepted
    command TEXT NOT NULL,          -- the command as applied, JSON (its "at" is game time)
    crc INTEGER NOT NULL            -- zlib.crc32 of command: a flipped bit is found, not replayed
);
CREATE INDEX IF NOT EXISTS journal_game ON journal(game, id);
"""
# solved practice puzzles (made on first use: journals from before them lack it)
_PRACTICE = """
CREATE TABLE IF NOT EXISTS practice (
    id INTEGER PRIMARY KEY,
    wall REAL NOT NULL,             -- when the puzzle was solved
    entry TEXT NOT NULL             -- JSON: seed, optimal and played moves, seconds, hint level
)"""


class JournalError(CompanionError, RuntimeError):
    """The journal cannot be read or written; the message names the file and the problem."""


def default_path() -> Path:
    """``journal.db`` in the user's data directory (``~/.local/share/ricochet-companion``)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME)) / DB_NAME


def _encode(command: Mapping[str, Any]) -> tuple[str, int]:
    text = json.dumps(command, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return text, zlib.crc32(text.encode())


def _check_header(path: Path) -> None:
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return
    except OSError as e:
        raise JournalError(f"{path}: cannot read the journal: {e.strerror}") from None
    if head and head != SQLITE_HEADER:
        raise JournalError(f"{path}: not a companion journal (the file is not an SQLite "
                           "database); it was left untouched")


def lock_path(path: Path) -> Path:
    """The lock file beside a journal: held by the one process that writes it."""
    return path.with_name(path.name + ".lock")


def _lock(path: Path) -> int | None:
    """Take the journal for this process: an exclusive lock on ``<journal>.lock`` that the
    system lets go when the process ends, however it ends (a power cut, ``kill -9``). A
    second companion on the same journal gets :class:`JournalError` naming the process that
    has it. Returns the lock's file descriptor (``None`` where the system has no locks)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on a Pi or Linux
        return None
    lock = lock_path(path)
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise JournalError(f"{path}: cannot lock the journal ({lock}: {e.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        try:
            other = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        finally:
            os.close(fd)
        raise JournalError(f"{path}: the journal is in use by another companion (pid {other});"
                           " stop that one first, or give this one another --db") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # the lock goes with the last descriptor


# What SQLite raises on a damaged file: its own error, or (when the damage reaches the schema's
# or a row's text) bytes that are not UTF-8, in the error message or in the row itself.
_UNREADABLE = (sqlite3.DatabaseError, UnicodeDecodeError)


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    _check_header(path)
    try:
        if readonly:
            if not path.exists():
                raise JournalError(f"{path}: no journal here")
            conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                                   isolation_level=None)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(path), isolation_level=None)
    except sqlite3.Error as e:
        raise JournalError(f"{path}: cannot open the journal: {e}") from None
    except OSError as e:
        raise JournalError(f"{path}: cannot open the journal: {e.strerror}") from None
    try:
        conn.execute("PRAGMA busy_timeout=5000")
        # Look before writing anything: a file that is not ours must stay byte for byte.
        check = conn.execute("PRAGMA quick_check").fetchall()
        if check != [("ok",)]:
            raise JournalError(f"{path}: the journal is damaged ({check[0][0]}); it was left "
                               "untouched: `companion history --db PATH --recover` copies the "
                               "intact part into a new file")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and not {"meta", "games", "journal"} <= tables:
            raise JournalError(f"{path}: an SQLite database, but not a companion journal; it "
                               "was left untouched")
        if not readonly:
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":  # pragma: no cover - only on filesystems without WAL
                raise JournalError(f"{path}: SQLite would not use WAL mode here ({mode})")
            conn.execute("PRAGMA synchronous=FULL")
        if "meta" in tables:
            row = conn.execute("SELECT value FROM meta WHERE key='format'").fetchone()
            if row is None or row[0] != FORMAT:
                raise JournalError(f"{path}: journal format {row[0] if row else None!r}, "
                                   f"expected {FORMAT!r}")
        elif not readonly:
            conn.executescript("BEGIN;" + _SCHEMA + "COMMIT;")
            conn.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
    except _UNREADABLE as e:
        conn.close()
        raise JournalError(f"{path}: the journal is damaged ({e}); it was left untouched: "
                           "`companion history --db PATH --recover` copies the intact part "
                           "into a new file") from None
    except JournalError:
        conn.close()
        raise
    return conn


def _rows(conn: sqlite3.Connection, path: Path, game_id: int) -> Iterator[tuple[int, dict]]:
    """The journal of one game, checked row by row."""
    for row_id, text, crc in conn.execute(
        "SELECT id, command, crc FROM journal WHERE game=? ORDER BY id", (game_id,)
    ):
        if not isinstance(text, str) or zlib.crc32(text.encode()) != crc:
            raise JournalError(f"{path}: journal row {row_id} is damaged (checksum); the file "
                               "was left untouched")
        try:
            yield row_id, json.loads(text)
        except json.JSONDecodeError:
            raise JournalError(f"{path}: journal row {row_id} is not valid JSON") from None


class Store:
    """A game with its journal.

    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "j.db", now=0.0) as store:
    ...     _ = store.apply({"type": "setup", "at": 0, "players": ["Anna", "Ben"], "seed": 1})
    ...     store.view()["phase"]
    'idle'

    ``path``: the database (default :func:`default_path`). ``now``: the caller's monotonic
    clock at opening (default ``time.monotonic()``), where the game resumes. ``readonly``: for
    looking at history while the companion runs; nothing is written, not even ``resume``.
    ``heartbeat``: the longest stretch of running timer left unjournaled.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        now: float | None = None,
        readonly: bool = False,
        heartbeat: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.readonly = readonly
        self.heartbeat = heartbeat
        self._rng = rng or random.SystemRandom()
        fresh = not lock_path(self.path).exists()
        self._lockfd = None if readonly else _lock(self.path)
        try:
            self._conn = _connect(self.path, readonly)
        except BaseException:
            _unlock(self._lockfd)
            if fresh and self._lockfd is not None:  # leave nothing beside a file not ours
                lock_path(self.path).unlink(missing_ok=True)
            raise
        self.game: Any = Game()
        self.game_id: int | None = None
        self._last_journaled = -math.inf
        try:
            self._load()
        except JournalError:
            self.close()
            raise
        if not readonly and self.game_id is not None and self.game.phase != "setup":
            resume = {"type": "resume", "at": time.monotonic() if now is None else now}
            self.game.apply(resume)
            self._journal(resume)

    # -- life cycle
    def close(self) -> None:
        """Close the file; a second close is harmless."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None  # type: ignore[assignment]
        _unlock(self._lockfd)
        self._lockfd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def kind(self) -> str:
        """Which game is journaled now: ``ricochet-robots`` or ``micro-robots``."""
        return game_kind(self.game)

    def _load(self) -> None:
        """Replay the current game's journal into a fresh game of the kind its first row says."""
        self.game = Game()
        row = self._conn.execute("SELECT max(id) FROM games").fetchone()
        self.game_id = row[0] if row else None
        self.rows = 0
        if self.game_id is None:
            return
        for row_id, command in _rows(self._conn, self.path, self.game_id):
            try:
                if self.rows == 0:
                    self.game = GAMES[command_kind(command)]()
                self.game.apply(engine_command(command))
            except GameError as e:
                raise JournalError(f"{self.path}: journal row {row_id} ({command.get('type')}) "
                                   f"does not replay: {e}; the file was left untouched") from None
            self.rows += 1
        self._last_journaled = self.game.now

    # -- playing
    def apply(self, command: Mapping[str, Any]) -> list[Event]:
        """Apply a command and journal it; returns once it is safely on disk.

        :class:`companion.game.GameError` for a refused command (nothing is journaled);
        :class:`JournalError` if the disk refuses it (the game is then rebuilt from the journal,
        so it never runs ahead of what is stored)."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        cmd = dict(command)
        kind = cmd.get("type")
        game = command_kind(cmd, self.kind)
        if kind in ("setup", "new_game") and "players" in cmd and cmd.get("seed") is None:
            cmd["seed"] = self._rng.getrandbits(32)
        switching = game != self.kind
        if switching and kind == "setup":
            kind = cmd["type"] = "new_game"  # the other game is always a new game
        cmd.pop("game", None)
        if game == MICRO and kind in ("setup", "new_game"):
            cmd["game"] = MICRO  # the journal row says which game replays it
        closing_summary = self.game.summary() if kind == "new_game" else None
        engine = GAMES[game]() if switching else self.game
        try:
            events = engine.apply(engine_command(cmd))
        except GameError as e:
            if e.events and self.game_id is not None:  # time changed the game; that stands
                self._journal({"type": "tick", "at": self.game.now})
            raise
        self.game = engine  # a failed write below rebuilds the game from the journal
        self._journal(cmd, new_game=kind == "new_game" or self.game_id is None,
                      summary=closing_summary)
        return events

    def advance(self, now: float) -> list[Event]:
        """Let time pass (the table loop calls this often); journals a ``tick`` when time changed
        the game, or when the running timer has gone ``heartbeat`` seconds unjournaled."""
        events = self.game.advance(now)
        if not self.readonly and self.game_id is not None and (
            events or (running(self.game) and now - self._last_journaled >= self.heartbeat)
        ):
            self._journal({"type": "tick", "at": now})
        return events

    def view(self, now: float | None = None) -> dict[str, Any]:
        return self.game.view(now)

    def _journal(self, cmd: dict[str, Any], new_game: bool = False,
                 summary: dict[str, Any] | None = None) -> None:
        text, crc = _encode(cmd)
        wall = time.time()
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            if new_game:
                if self.game_id is not None:
                    conn.execute("UPDATE games SET ended=?, summary=? WHERE id=?",
                                 (wall, json.dumps(summary), self.game_id))
                game_id = conn.execute("INSERT INTO games (started) VALUES (?)",
                                       (wall,)).lastrowid
            else:
                game_id = self.game_id
            conn.execute("INSERT INTO journal (game, wall, command, crc) VALUES (?, ?, ?, ?)",
                         (game_id, wall, text, crc))
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._load()
            raise JournalError(f"{self.path}: could not journal the {cmd.get('type')} command: "
                               f"{e}; the game stays where the journal is") from None
        self.game_id = game_id
        self.rows = 1 if new_game else self.rows + 1
        self._last_journaled = float(cmd["at"])

    # -- practice puzzles (solo, outside any game)
    def add_practice(self, entry: Mapping[str, Any]) -> None:
        """Keep a solved practice puzzle (its seed, optimal and played moves, time, hints)."""
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        try:
            with self._conn:
                self._conn.execute(_PRACTICE)
                self._conn.execute("INSERT INTO practice (wall, entry) VALUES (?, ?)",
                                   (time.time(), json.dumps(dict(entry))))
        except sqlite3.Error as e:
            raise JournalError(f"{self.path}: could not keep the practice result: {e}") \
                from None

    def practice(self) -> list[dict[str, Any]]:
        """Every solved practice puzzle, oldest first, with when (``solved``, ISO time)."""
        try:
            rows = self._conn.execute("SELECT wall, entry FROM practice ORDER BY id").fetchall()
        except sqlite3.OperationalError:  # a journal from before practice puzzles
            return []
        return [{"solved": _iso(wall), **json.loads(entry)} for wall, entry in rows]

    # -- reading
    def commands(self, game_id: int | None = None) -> list[dict[str, Any]]:
        """Every journaled command of a game (default: the current one), in order."""
        gid = self.game_id if game_id is None else game_id
        if gid is None:
            return []
        return [c for _, c in _rows(self._conn, self.path, gid)]

    def history(self) -> list[dict[str, Any]]:
        """Every game, oldest first: when, who, chips, winners, rounds played."""
        out = []
        for gid, started, ended, summary in self._conn.execute(
            "SELECT id, started, ended, summary FROM games ORDER BY id"
        ):
            if gid == self.game_id:
                s = self.game.summary()
            elif summary:
                s = json.loads(summary)
            else:  # pragma: no cover - only the newest game is ever open
                s = replay_summary(self.commands(gid))
            if not s["players"]:
                continue
            status = "over" if s["phase"] == "game_over" else (
                "playing" if gid == self.game_id else "abandoned")
            out.append({
                "id": gid,
                "game": s.get("game", CLASSIC),
                "started": _iso(started),
                "ended": _iso(ended) if ended else None,
                "status": status,
                "rules": s["rules"],
                "players": s["players"],
                "chips": s["chips"],
                "winners": [s["players"][i] for i in s["winners"]],
                "rounds": len(s["rounds"]),
                "summary": s,
            })
        return out

    def player_stats(self) -> dict[str, dict[str, Any]]:
        """Per player (by name) over every game: games, wins, rounds won, bids made, how often
        the bid was the optimum, and the average excess of a bid over the optimum. Micro Robots
        counts in games, wins, chips (VP) and rounds won, and its calls apart (``calls_made``,
        ``calls_met``: a call is met by exactly that many moves, so it has no optimum)."""
        stats: dict[str, dict[str, Any]] = {}

        def entry(name: str) -> dict[str, Any]:
            return stats.setdefault(name, {
                "games": 0, "games_won": 0, "rounds_won": 0, "chips": 0, "bids_made": 0,
                "bids_with_optimum": 0, "optimal_bids": 0, "excess_total": 0,
                "calls_made": 0, "calls_met": 0,
            })

        for g in self.history():
            s = g["summary"]
            for seat, name in enumerate(s["players"]):
                e = entry(name)
                e["games"] += 1
                e["chips"] += s["chips"][seat]
                if seat in s["winners"]:
                    e["games_won"] += 1
            if s.get("game") == MICRO:
                for rnd in s["rounds"]:
                    e = entry(rnd["name"])
                    e["calls_made"] += 1
                    e["calls_met"] += bool(rnd["success"])
                    e["rounds_won"] += bool(rnd["success"])
                continue
            for rnd in s["rounds"]:
                if rnd.get("winner_name") is not None and rnd.get("face", "up") == "up":
                    entry(rnd["winner_name"])["rounds_won"] += 1
                for b in rnd["bids"]:
                    e = entry(b["name"])
                    e["bids_made"] += 1
                    if rnd.get("optimum") is not None:
                        e["bids_with_optimum"] += 1
                        e["optimal_bids"] += b["value"] == rnd["optimum"]
                        e["excess_total"] += b["value"] - rnd["optimum"]
        for e in stats.values():
            n = e.pop("bids_with_optimum")
            total = e.pop("excess_total")
            e["bids_judged"] = n
            e["optimal_share"] = round(e["optimal_bids"] / n, 3) if n else None
            e["average_excess"] = round(total / n, 3) if n else None
        return dict(sorted(stats.items()))


def _iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat(timespec="seconds")


def replay_summary(commands: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary of a game rebuilt from its commands."""
    return replay_game(commands).summary()


def recover(path: str | Path, dest: str | Path | None = None) -> tuple[Path, int, int]:
    """Copy the intact prefix of a damaged journal into a new file; the original is untouched.

    Reads rows in order and stops at the first that cannot be read, fails its checksum, or no
    longer replays. Returns ``(new file, rows kept, rows left out)``. The new file is
    ``<name>.recovered-<UTC time>.db`` beside the original unless ``dest`` is given; an
    existing file is never overwritten."""
    src = Path(path)
    _check_header(src)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    out = Path(dest) if dest is not None else src.with_name(f"{src.stem}.recovered-{stamp}.db")
    if out.exists():
        raise JournalError(f"{out}: already exists; not overwriting it")
    kept: list[tuple[int, float, str, int]] = []
    games: dict[int, tuple[float, float | None, str | None]] = {}
    total = 0
    try:
        with closing(sqlite3.connect(f"{src.resolve().as_uri()}?mode=ro", uri=True)) as conn:
            try:
                total = conn.execute("SELECT count(*) FROM journal").fetchone()[0]
            except _UNREADABLE:
                total = -1
            try:
                for gid, started, ended, summary in conn.execute(
                    "SELECT id, started, ended, summary FROM games ORDER BY id"
                ):
                    games[gid] = (started, ended, summary)
            except _UNREADABLE:
                pass
            try:
                game: Any = None
                current = None
                for row in conn.execute(
                    "SELECT game, wall, command, crc FROM journal ORDER BY id"
                ):
                    gid, wall, text, crc = row
                    if not isinstance(text, str) or zlib.crc32(text.encode()) != crc:
                        break
                    try:
                        command = json.loads(text)
                        if gid != current:
                            game, current = GAMES[command_kind(command)](), gid
                        game.apply(engine_command(command))
                    except (GameError, ValueError, AttributeError):
                        break
                    kept.append(row)
            except _UNREADABLE:
                pass
    except _UNREADABLE as e:
        raise JournalError(f"{src}: nothing can be read from it ({e})") from None
    with Store(out, now=0.0) as store:
        conn = store._conn
        conn.execute("BEGIN IMMEDIATE")
        for gid in sorted({r[0] for r in kept}):
            started, ended, summary = games.get(gid, (kept[0][1], None, None))
            conn.execute("INSERT INTO games (id, started, ended, summary) VALUES (?, ?, ?, ?)",
                         (gid, started, ended, summary))
        conn.executemany("INSERT INTO journal (game, wall, command, crc) VALUES (?, ?, ?, ?)",
                         kept)
        conn.execute("COMMIT")
    left = max(total - len(kept), 0) if total >= 0 else -1
    return out, len(kept), left


# ---------------------------------------------------------------- Micro Robots layouts

LAYOUTS_DIR = "micro-layouts"
MAX_LAYOUT_NAME = 40


class LayoutShelf:
    """The Micro Robots boards this table knows, saved by name: one ``micro-layout/1`` file
    each in a folder beside the journal (``micro-layouts/``), so ``companion micro solve``
    reads them too.

    The name inside each file is what the shelf goes by: a layout is found by reading the
    names in the files (names are the same when they differ only in case or spacing), never
    by guessing a file from a name. A new layout gets a file name of its own from its name
    (``Kitchen table`` → ``kitchen-table.json``; ``日本`` → ``layout.json``, then ``中文`` →
    ``layout-2.json``), so two names never share a file and deleting one never touches
    another. Files written before (and by hand) read the same way; a file without a name goes
    by its file name.

    >>> import tempfile
    >>> from companion.micro import example_layout
    >>> shelf = LayoutShelf(Path(tempfile.mkdtemp()))
    >>> shelf.save(example_layout().renamed("Kitchen table")).name
    'Kitchen table'
    >>> [x["name"] for x in shelf.list()]
    ['Kitchen table']
    """

    _lock = threading.RLock()  # finding a free file and writing it are one step

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    @classmethod
    def beside(cls, db: str | Path | None) -> LayoutShelf:
        """The shelf beside a journal (the default journal's when ``db`` is None)."""
        path = Path(db) if db and db != ":memory:" else default_path()
        return cls(path.parent / LAYOUTS_DIR)

    @staticmethod
    def clean_name(name: Any) -> str:
        """A layout's name, trimmed; :class:`LayoutError` says what is wrong with it."""
        if not isinstance(name, str) or not name.strip():
            raise LayoutError("name: give the layout a name")
        name = unicodedata.normalize("NFC", " ".join(name.split()))
        if len(name) > MAX_LAYOUT_NAME:
            raise LayoutError(f"name: at most {MAX_LAYOUT_NAME} characters")
        if not any(ch.isalnum() for ch in name):
            raise LayoutError("name: use letters or digits")
        if any(not ch.isprintable() for ch in name):
            raise LayoutError("name: only printable characters")
        return name

    @staticmethod
    def _key(name: str) -> str:
        return unicodedata.normalize("NFC", " ".join(name.split())).casefold()

    def _names(self) -> list[tuple[Path, str, str | None]]:
        """Every file: (path, the name it goes by, why it does not read or None)."""
        out: list[tuple[Path, str, str | None]] = []
        for f in sorted(self.folder.glob("*.json")) if self.folder.is_dir() else []:
            try:
                out.append((f, Layout.load(f).name or f.stem, None))
            except LayoutError as e:
                out.append((f, f.stem, str(e)))
        return out

    def _lookup(self, name: str) -> Path | None:
        key = self._key(name)
        return next((f for f, n, _ in self._names() if self._key(n) == key), None)

    def _new_path(self, name: str) -> Path:
        """A file no layout has yet, named after ``name`` as far as its letters allow."""
        slug = re.sub(r"[^0-9a-z]+", "-", name.casefold()).strip("-")[:MAX_LAYOUT_NAME]
        slug = slug.strip("-") or "layout"
        path, n = self.folder / f"{slug}.json", 2
        while path.exists():
            path, n = self.folder / f"{slug}-{n}.json", n + 1
        return path

    def path(self, name: str) -> Path:
        """The file of the layout called ``name``, or the file a new one would get."""
        name = self.clean_name(name)
        with self._lock:
            return self._lookup(name) or self._new_path(name)

    def list(self) -> list[dict[str, Any]]:
        """Every saved layout, by name: ``{"name", "file"}``, or with ``error`` for a file
        that no longer reads (it is listed, never deleted or overwritten unasked)."""
        out = [{"name": n, "file": f.name} | ({"error": e} if e else {})
               for f, n, e in self._names()]
        return sorted(out, key=lambda x: x["name"].casefold())

    def _find(self, name: str) -> Path:
        path = self._lookup(self.clean_name(name))
        if path is None:
            raise LayoutError(f"no layout called {self.clean_name(name)!r}")
        return path

    def load(self, name: str) -> Layout:
        return Layout.load(self._find(name))

    def save(self, layout: Layout, replace: bool = True) -> Layout:
        """Save under the layout's name (replacing a layout of that name unless ``replace``
        is False); returns the layout as saved."""
        name = self.clean_name(layout.name)
        with self._lock:
            path = self._lookup(name)
            if path is not None and not replace:
                try:
                    other = Layout.load(path).name or path.stem
                except LayoutError:
                    other = path.stem
                raise LayoutError(f"name: a layout called {other!r} is already saved")
            self.folder.mkdir(parents=True, exist_ok=True)
            layout = layout.renamed(name)
            layout.save(path or self._new_path(name))
        return layout

    def rename(self, old: str, new: str) -> Layout:
        with self._lock:
            src = self._find(old)
            layout = Layout.load(src).renamed(self.clean_name(new))
            other = self._lookup(layout.name)
            if other is not None and other != src:
                raise LayoutError(f"name: a layout called {layout.name!r} is already saved")
            if self._key(layout.name) == self._key(old):
                layout.save(src)
            else:
                layout.save(self._new_path(layout.name))
                src.unlink()
        return layout

    def delete(self, name: str) -> None:
        with self._lock:
            self._find(name).unlink()

