"""The journal: replay on start, time while off, history and statistics, damaged files, and a
real crash test (a child process killed with SIGKILL mid-round, again and again)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion import cli
from companion.game import GameError, replay
from companion.store import JournalError, Store, default_path, recover

BOARD = {"size": 8, "targets": [{"cell": "h8", "color": "blue", "shape": "triangle"}]}
ROBOTS = {"red": "c2", "green": "b6", "blue": "a1", "yellow": "e5"}
SETUP = {"type": "setup", "at": 0.0, "players": ["Anna", "Ben"], "seed": 5, "board": BOARD,
         "robots": ROBOTS}


def play_round(store: Store, t: float, winner: int | None, bids: dict[int, int],
               optimum: int | None = None) -> float:
    """Reveal, bid, let the timer run out, and have the table judge: returns the time after."""
    store.apply({"type": "reveal", "at": t})
    if optimum is not None:
        store.apply({"type": "optimum", "at": t, "optimum": optimum})
    for i, (seat, value) in enumerate(bids.items()):
        store.apply({"type": "bid", "at": t + 1 + i, "seat": seat, "value": value})
    t += 100
    store.advance(t)
    while store.view()["phase"] == "demonstrating":
        ok = store.view()["demonstrating"] == winner
        store.apply({"type": "verdict", "at": t, "success": ok, "by": "table"})
    return t + 1


def rows(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM journal").fetchone()[0]


# ---------------------------------------------------------------- replay


def test_reopening_replays_the_game_exactly(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        t = play_round(s, 1, winner=1, bids={0: 4, 1: 3})
        s.apply({"type": "reveal", "at": t})
        s.apply({"type": "bid", "at": t + 2, "seat": 0, "value": 6})
        s.apply({"type": "bid", "at": t + 3, "seat": 1, "value": 5})
        live = s.view()
    with Store(db, now=live["at"]) as s:  # the same clock: nothing shifts
        again = s.view()
    assert again == live
    assert again["players"][1]["chips"] == 1 and again["bids"][0]["value"] == 5


def test_the_demonstration_so_far_survives(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1, "chip": "blue triangle"})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 2})
        s.advance(70)
        s.apply({"type": "move", "at": 71, "move": "blue up"})
    with Store(db, now=5.0) as s:
        v = s.view()
        assert v["phase"] == "demonstrating" and v["moves"] == ["blue up"]
        ev = s.apply({"type": "move", "at": 6, "move": "blue right"})
        assert "demonstration_succeeded" in [e["type"] for e in ev]


def test_time_spent_off_does_not_count(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=100.0) as s:
        s.apply({**SETUP, "at": 100.0})
        s.apply({"type": "reveal", "at": 101})
        s.apply({"type": "bid", "at": 110, "seat": 0, "value": 7})
        s.advance(125)  # 45 s left
    with Store(db, now=3.0) as s:  # the machine rebooted: its clock starts again
        timer = s.view(3.0)["timer"]
        assert timer["remaining"] == 45 and timer["ends_at"] == 48
        assert s.advance(47.9) == []
        assert [e["type"] for e in s.advance(48)][:1] == ["timer_ended"]


def test_undo_works_across_a_restart(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 30, "seat": 0, "value": 7})
        s.apply({"type": "bid", "at": 31, "seat": 0, "value": 2})  # meant 6
    with Store(db, now=500.0) as s:
        s.apply({"type": "undo", "at": 501})
        v = s.view()
        assert v["players"][0]["bid"] == 7
        assert v["timer"]["remaining"] == 60 - 2  # one second of bidding before, one after
        s.apply({"type": "undo", "at": 502})
        v = s.view()
        assert v["players"][0]["bid"] is None and v["phase"] == "bidding"
        # the soft timeout still counts from the reveal, in the new clock: 1 + 240 - 31 + 500
        assert [e["type"] for e in s.advance(709.9)] == []
        assert s.advance(710)[0]["type"] == "timer_started"


def test_heartbeat_bounds_the_time_handed_back(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0, heartbeat=1.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        before = rows(db)
        for i in range(1, 81):
            s.advance(2 + i * 0.25)  # 20 s of the table loop at 4 Hz
        ticks = rows(db) - before
        live = s.view()["timer"]["remaining"]
    assert 19 <= ticks <= 21
    with Store(db, now=0.0) as s:
        assert 0 <= s.view()["timer"]["remaining"] - live <= 1.0


def test_the_timer_running_out_is_journaled(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0, heartbeat=1000) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        s.advance(70)
    with Store(db, now=0.0) as s:
        assert s.view()["phase"] == "demonstrating"


def test_a_late_bid_is_refused_but_the_timer_end_stands(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0, heartbeat=1000) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        with pytest.raises(GameError, match="the timer has run out"):
            s.apply({"type": "bid", "at": 80, "seat": 1, "value": 3})
    with Store(db, now=0.0) as s:
        assert s.view()["phase"] == "demonstrating"
        assert [b["seat"] for b in s.view()["bids"]] == [0]


def test_refused_commands_are_not_journaled(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        n = rows(db)
        with pytest.raises(GameError, match="higher than her bid of 7"):
            s.apply({"type": "bid", "at": 3, "seat": 0, "value": 9})
        assert rows(db) == n


def test_the_seed_is_journaled_so_the_deck_replays(tmp_path):
    db = tmp_path / "j.db"
    setup = {k: v for k, v in SETUP.items() if k != "seed"}
    with Store(db, now=0.0) as s:
        s.apply(setup)
        deck = list(s.game.s.deck)
        assert s.commands()[0]["seed"] is not None
    with Store(db, now=0.0) as s:
        assert s.game.s.deck == deck


def test_every_command_is_synced_before_it_is_acknowledged(tmp_path):
    with Store(tmp_path / "j.db", now=0.0) as s:
        assert s._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_write_the_disk_refuses_leaves_the_game_where_the_journal_is(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s._conn.execute("PRAGMA busy_timeout=50")
        blocker = sqlite3.connect(db, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            with pytest.raises(JournalError, match="could not journal the bid command"):
                s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert s.view()["players"][0]["bid"] is None and s.view()["phase"] == "bidding"
        s.apply({"type": "bid", "at": 3, "seat": 0, "value": 7})
        assert s.view()["players"][0]["bid"] == 7


def test_readonly_writes_nothing(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
    n = rows(db)
    with Store(db, readonly=True) as s:
        assert s.view()["phase"] == "bidding"
        with pytest.raises(JournalError, match="read-only"):
            s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
    assert rows(db) == n


def test_default_database_is_in_the_users_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "ricochet-companion" / "journal.db"
    with Store(now=0.0) as s:
        s.apply(SETUP)
    assert (tmp_path / "data" / "ricochet-companion" / "journal.db").exists()


# ---------------------------------------------------------------- history and statistics


def _three_games(db: Path) -> None:
    with Store(db, now=0.0) as s:
        s.apply({**SETUP, "rules": {"chips_to_win": 2}})
        t = play_round(s, 1, winner=0, bids={0: 3, 1: 4}, optimum=3)
        t = play_round(s, t, winner=1, bids={1: 5, 0: 6}, optimum=3)
        t = play_round(s, t, winner=0, bids={0: 4}, optimum=2)
        assert s.view()["phase"] == "game_over"
        s.apply({"type": "new_game", "at": t, "players": ["Ben", "Cleo"], "seed": 1,
                 "board": BOARD, "robots": ROBOTS})
        t = play_round(s, t, winner=None, bids={0: 2})
        s.apply({"type": "new_game", "at": t, "players": ["Cleo", "Anna"], "seed": 2})


def test_history_lists_games_and_winners(tmp_path):
    db = tmp_path / "j.db"
    _three_games(db)
    with Store(db, readonly=True) as s:
        games = s.history()
    assert [g["status"] for g in games] == ["over", "abandoned", "playing"]
    assert games[0]["players"] == ["Anna", "Ben"] and games[0]["chips"] == [2, 1]
    assert games[0]["winners"] == ["Anna"] and games[0]["rounds"] == 3
    assert games[1]["winners"] == [] and games[1]["rounds"] == 1
    assert games[2]["players"] == ["Cleo", "Anna"] and games[2]["rounds"] == 0


def test_player_statistics(tmp_path):
    db = tmp_path / "j.db"
    _three_games(db)
    with Store(db, readonly=True) as s:
        stats = s.player_stats()
    anna, ben = stats["Anna"], stats["Ben"]
    assert (anna["games"], anna["games_won"], anna["rounds_won"], anna["chips"]) == (2, 1, 2, 2)
    # Anna bid 3 (optimum 3), 6 (optimum 3), 4 (optimum 2): one optimal, excess (0+3+2)/3
    assert anna["bids_made"] == 3 and anna["optimal_bids"] == 1
    assert anna["optimal_share"] == pytest.approx(0.333) and anna["average_excess"] == 1.667
    # Ben bid 4 (optimum 3), 5 (optimum 3), and 2 with no optimum known
    assert ben["bids_made"] == 3 and ben["bids_judged"] == 2 and ben["optimal_bids"] == 0
    assert ben["average_excess"] == 1.5 and ben["rounds_won"] == 1
    assert stats["Cleo"]["bids_made"] == 0 and stats["Cleo"]["average_excess"] is None


def test_cli_history_prints_games_and_players(tmp_path, capsys):
    db = tmp_path / "j.db"
    _three_games(db)
    assert cli.main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "Anna 2, Ben 1 → Anna" in out and "over" in out
    assert cli.main(["history", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["winners"] for g in data["games"]] == [["Anna"], [], []]
    assert data["players"]["Anna"]["rounds_won"] == 2
    assert data["games"][0]["rounds"][0]["optimum"] == 3


def test_cli_history_bad_database_exits_2(tmp_path, capsys):
    bad = tmp_path / "notes.db"
    bad.write_text("shopping list\n")
    assert cli.main(["history", "--db", str(bad)]) == 2
    assert "not a companion journal" in capsys.readouterr().err
    assert cli.main(["history", "--db", str(tmp_path / "none.db")]) == 2
    assert "no journal at" in capsys.readouterr().err


# ---------------------------------------------------------------- damaged journals


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_file_that_is_not_a_database_is_left_untouched(tmp_path):
    bad = tmp_path / "j.db"
    bad.write_bytes(b"not sqlite at all" * 100)
    before = _digest(bad)
    with pytest.raises(JournalError, match="not a companion journal"):
        Store(bad, now=0.0)
    assert _digest(bad) == before and sorted(p.name for p in tmp_path.iterdir()) == ["j.db"]


def test_another_programs_database_is_left_untouched(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    before = _digest(other)
    with pytest.raises(JournalError, match="not a companion journal"):
        Store(other, now=0.0)
    assert _digest(other) == before


def _journal_with_rounds(db: Path) -> int:
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        t = 1.0
        for _ in range(3):
            t = play_round(s, t, winner=0, bids={0: 4})
            s.apply({"type": "optimum", "at": t, "optimum": 9, "round": 1})
    return rows(db)


def test_a_torn_last_write_loses_only_the_unacknowledged_command(tmp_path):
    db = tmp_path / "j.db"
    copy = tmp_path / "copy"
    copy.mkdir()
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        s.apply({"type": "reveal", "at": 1})
        s.apply({"type": "bid", "at": 2, "seat": 0, "value": 7})
        acknowledged = s.view()
        s.apply({"type": "bid", "at": 3, "seat": 1, "value": 5})
        # the power fails while the last frame is written: copy the files as they are on disk
        shutil.copy(db, copy / "j.db")
        shutil.copy(db.with_name("j.db-wal"), copy / "j.db-wal")
    wal = copy / "j.db-wal"
    with wal.open("r+b") as f:
        f.truncate(wal.stat().st_size - 100)
    with Store(copy / "j.db", readonly=False, now=acknowledged["at"]) as s:
        assert s.view()["players"][1]["bid"] is None  # the torn bid is gone ...
        assert s.view()["players"][0]["bid"] == 7  # ... everything before it is kept
        assert s.view()["timer"] == acknowledged["timer"]


def test_a_damaged_page_is_reported_and_the_file_left_untouched(tmp_path):
    db = tmp_path / "j.db"
    n = _journal_with_rounds(db)
    with sqlite3.connect(db) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='journal'").fetchone()
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db.read_bytes())
    start = (root[0] - 1) * size
    data[start: start + 12] = b"\xff" * 12  # the journal page's header is scribbled over
    db.write_bytes(bytes(data))
    before = _digest(db)
    with pytest.raises(JournalError, match="damaged"):
        Store(db, now=0.0)
    assert _digest(db) == before
    out, kept, left = recover(db)
    assert _digest(db) == before and out.exists() and out != db
    assert 0 <= kept <= n


def test_a_truncated_file_is_reported_and_left_untouched(tmp_path):
    db = tmp_path / "j.db"
    _journal_with_rounds(db)
    with db.open("r+b") as f:
        f.truncate(db.stat().st_size // 2)
    before = _digest(db)
    with pytest.raises(JournalError, match="damaged"):
        Store(db, now=0.0)
    assert _digest(db) == before


def test_a_flipped_bit_in_a_row_is_found_and_the_prefix_recovered(tmp_path):
    db = tmp_path / "j.db"
    n = _journal_with_rounds(db)
    with sqlite3.connect(db) as conn:
        (row_id, text), = conn.execute(
            "SELECT id, command FROM journal WHERE command LIKE '%\"verdict\"%' ORDER BY id "
            "LIMIT 1 OFFSET 1")
        conn.execute("UPDATE journal SET command=? WHERE id=?",
                     (text.replace("true", "fals"), row_id))
    before = _digest(db)
    with pytest.raises(JournalError, match=f"journal row {row_id} is damaged"):
        Store(db, now=0.0)
    assert _digest(db) == before
    out, kept, left = recover(db)
    assert (kept, left) == (row_id - 1, n - row_id + 1)
    with Store(out, now=0.0) as s:  # the recovered file is a working journal
        assert s.view()["players"][0]["chips"] == 1  # the first round's chip is kept
    with pytest.raises(JournalError, match="already exists"):
        recover(db, out)


def test_cli_recover_copies_the_intact_part(tmp_path, capsys):
    db = tmp_path / "j.db"
    _journal_with_rounds(db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE journal SET crc = crc + 1 WHERE id = 5")
    assert cli.main(["history", "--db", str(db)]) == 2
    assert "row 5 is damaged" in capsys.readouterr().err
    assert cli.main(["history", "--db", str(db), "--recover"]) == 0
    out = capsys.readouterr().out
    assert "copied 4 intact journal rows" in out and "is untouched" in out


# ---------------------------------------------------------------- the crash test

CHILD = r"""
import hashlib, json, random, sys
from companion.store import Store
from companion.game import GameError

db, seed, start = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
rng = random.Random(seed)
store = Store(db, now=start, heartbeat=2.0)
t = start

def ack(kind):
    v = store.view()
    digest = hashlib.sha256(json.dumps(v, sort_keys=True).encode()).hexdigest()
    print(f"ACK {store.game_id} {store.rows} {kind} {digest}", flush=True)

ack("open")
names = ["Anna", "Ben", "Cleo"]
board = {"size": 8, "targets": [{"cell": "h8", "color": "blue", "shape": "triangle"}]}
robots = {"red": "c2", "green": "b6", "blue": "a1", "yellow": "e5"}
moves = [f"{r} {d}" for r in ("red", "blue") for d in ("up", "down", "left", "right")]
while True:
    t += rng.choice([0.1, 0.5, 2.0, 15.0])
    v = store.view()
    p = v["phase"]
    n = len(v["players"])
    if rng.random() < 0.3:
        before = store.rows
        store.advance(t)
        if store.rows != before:
            ack("tick")
        continue
    if p == "setup" or p == "game_over":
        cmd = {"type": "new_game", "players": names[: rng.choice([2, 3])], "board": board,
               "robots": robots, "rules": {"chips_to_win": 3}}
    elif p in ("idle", "round_over"):
        cmd = rng.choice([{"type": "reveal"}, {"type": "reveal", "chip": "blue triangle"},
                          {"type": "optimum", "optimum": rng.randint(2, 6)}])
    elif p in ("bidding", "timer"):
        cmd = rng.choice([{"type": "bid", "seat": rng.randrange(n), "value": rng.randint(1, 9)}] * 4
                         + [{"type": "undo"}, {"type": "robots", "robots": robots}])
    else:
        cmd = rng.choice([{"type": "move", "move": rng.choice(moves)}] * 3
                         + [{"type": "verdict", "success": rng.random() < 0.5, "by": "table"},
                            {"type": "give_up", "seat": v["demonstrating"]}, {"type": "undo"}])
    cmd["at"] = t
    before = store.rows
    try:
        store.apply(cmd)
    except GameError:
        # a refused command leaves no row of its own, but the time it carried may have ended
        # the timer first, and that tick is journaled: acknowledge what is on disk
        if store.rows != before:
            ack("tick")
        continue
    ack(cmd["type"])
"""


@pytest.mark.slow
def test_crash_anywhere_loses_nothing_acknowledged(tmp_path):
    """SIGKILL a child mid-game at random points; each restart must hold every acknowledged
    command and be exactly in the acknowledged state (or one in-flight command ahead)."""
    db = tmp_path / "crash.db"
    rng = random.Random(2024)
    kills = acked_total = ahead = 0
    t0 = time.perf_counter()
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    for i in range(52):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(db), str(i), str(1000.0 * i)],
            stdout=subprocess.PIPE, text=True, env=env, cwd=repo)
        want = rng.randint(1, 20)
        acks = []
        assert child.stdout is not None
        for line in child.stdout:
            acks.append(line.split())
            if len(acks) > want:
                break
        child.send_signal(signal.SIGKILL)
        child.wait()
        # acknowledgements the child wrote before it died but not yet read here still count
        # (a line the kill cut short is not an acknowledgement)
        rest = child.stdout.read().split("\n")[:-1]
        acks.extend(line.split() for line in rest)
        child.stdout.close()
        kills += 1
        assert acks, "the child acknowledged nothing"
        acked_total += len(acks) - 1  # the open line is not a command
        _, game_id, n_rows, _, digest = acks[-1]
        with Store(db, readonly=True) as s:
            got_game, got_rows = s.game_id, s.rows
            view = s.view()
            commands = s.commands()
        if (got_game, got_rows) == (int(game_id), int(n_rows)):
            recovered = hashlib.sha256(json.dumps(view, sort_keys=True).encode()).hexdigest()
            assert recovered == digest, f"kill {kills}: state differs from the acknowledged one"
        else:  # one command was on disk but its acknowledgement never left the child
            ahead += 1
            assert (got_game == int(game_id) and got_rows == int(n_rows) + 1) or (
                got_game == int(game_id) + 1 and got_rows == 1), (
                f"kill {kills}: journal at game {got_game} row {got_rows}, "
                f"acknowledged game {game_id} row {n_rows}")
        assert replay(commands).view() == view
    elapsed = time.perf_counter() - t0
    print(f"\ncrash test: {kills} SIGKILLs, {acked_total} commands acknowledged, all recovered; "
          f"{ahead} restarts found one unacknowledged command committed; {elapsed:.1f} s")
    assert kills >= 50


# ---------------------------------------------------------------- Micro Robots in the journal

def micro_setup(at: float = 0.0, **extra) -> dict:
    from companion.micro import example_layout

    return {"type": "setup", "game": "micro-robots", "at": at, "players": ["Ann", "Bo", "Cy"],
            "layout": example_layout().to_dict(), "seed": 3, **extra}


def test_a_micro_game_replays_exactly_mid_demonstration(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(micro_setup())
        assert s.kind == "micro-robots"
        s.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
        s.apply({"type": "call", "at": 5, "seat": 1, "number": 5})
        s.apply({"type": "land", "at": 6, "space": "pink6"})
        s.apply({"type": "land", "at": 7, "space": "white6"})
        live = s.view()
    with Store(db, now=live["at"]) as s:
        assert s.kind == "micro-robots" and s.view() == live
        events = s.apply({"type": "land", "at": 9, "spaces": ["red6", "red2", "white2"]})
        assert [e["type"] for e in events][-3:] == ["demonstration_succeeded", "chip_won",
                                                    "round_over"]
        assert s.view()["players"][1]["vp"] == 1


def test_a_micro_power_cut_keeps_the_stall_hourglass_sand(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0, heartbeat=1.0) as s:
        s.apply(micro_setup(options={"stall_seconds": 120}))
        s.apply({"type": "roll", "at": 10})
        target = s.view()["target"]
        for t in range(11, 41):
            s.advance(float(t))  # 30 s of sand run, journaled by the heartbeat
    # The machine was off for an hour; the clock restarted at 5.
    with Store(db, now=5.0) as s:
        v = s.view(5.0)
        assert v["target"] == target and v["phase"] == "round"
        assert 89.0 <= v["stall"]["remaining"] <= 91.0
        assert s.advance(5.0 + 89.0) == []
        events = s.advance(5.0 + 91.0)
        assert [e["type"] for e in events] == ["target_rerolled"]


def test_switching_games_is_a_new_game_and_history_lists_both(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        play_round(s, 1, winner=0, bids={0: 3})
        s.apply(micro_setup(at=200))  # a setup of the other game: a new game
        assert s.kind == "micro-robots" and s.view()["phase"] == "idle"
        s.apply({"type": "place", "at": 201, "start": "pink1", "target": "white2"})
        s.apply({"type": "call", "at": 202, "seat": 2, "number": 4})
        s.apply({"type": "give_up", "at": 203})
        history = s.history()
        stats = s.player_stats()
    assert [(g["game"], g["status"]) for g in history] == [
        ("ricochet-robots", "abandoned"), ("micro-robots", "playing")]
    assert history[1]["players"] == ["Ann", "Bo", "Cy"] and history[1]["rounds"] == 1
    assert stats["Cy"]["calls_made"] == 1 and stats["Cy"]["calls_met"] == 0
    assert stats["Anna"]["rounds_won"] == 1
    with Store(db, readonly=True) as s:  # the micro game replays from its own first row
        assert s.kind == "micro-robots" and s.view()["round"] == 1
        assert [g["game"] for g in s.history()] == ["ricochet-robots", "micro-robots"]
    with Store(db, now=300.0) as s:  # and back to the classic game: another new game
        s.apply({**SETUP, "at": 300})
        assert s.kind == "ricochet-robots" and len(s.history()) == 3


def test_a_refused_micro_setup_keeps_the_classic_game(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(SETUP)
        with pytest.raises(GameError, match="layout"):
            s.apply(micro_setup(at=1, layout={"rows": [["pink1"]]}))
        with pytest.raises(GameError, match="not a game this table plays"):
            s.apply({**SETUP, "at": 2, "game": "chess"})
        assert s.kind == "ricochet-robots" and s.view()["players"][0]["name"] == "Anna"
    assert rows(db) == 1


def test_cli_history_marks_micro_games(tmp_path, capsys):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(micro_setup())
        s.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
        s.apply({"type": "call", "at": 2, "seat": 0, "number": 5})
        s.apply({"type": "land", "at": 3, "spaces": ["pink6", "white6", "red6", "red2",
                                                     "white2"]})
    assert cli.main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^\s+1 .* micro +playing +1  Ann 1, Bo 0, Cy 0", out, re.M), out
    assert cli.main(["history", "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"][0]["game"] == "micro-robots"
    assert data["games"][0]["rounds"][0]["shortest_route"][-1] == "white2"


def test_a_micro_journal_with_a_damaged_row_recovers_its_prefix(tmp_path):
    db = tmp_path / "j.db"
    with Store(db, now=0.0) as s:
        s.apply(micro_setup())
        s.apply({"type": "place", "at": 1, "start": "pink1", "target": "white2"})
        s.apply({"type": "call", "at": 2, "seat": 0, "number": 5})
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE journal SET command = replace(command, '5', '6') WHERE id = 3")
    out, kept, left = recover(db)
    assert (kept, left) == (2, 1)
    with Store(out, readonly=True) as s:
        assert s.kind == "micro-robots" and s.view()["target"] == "white2"


def test_layouts_are_saved_by_name_beside_the_journal(tmp_path):
    from companion.micro import Layout, LayoutError, example_layout
    from companion.store import LayoutShelf

    shelf = LayoutShelf.beside(tmp_path / "j.db")
    assert shelf.folder == tmp_path / "micro-layouts" and shelf.list() == []
    saved = shelf.save(example_layout().renamed("  Kitchen   table "))
    assert saved.name == "Kitchen table"
    assert (tmp_path / "micro-layouts" / "kitchen-table.json").exists()
    # the file is an ordinary layout file: `companion micro solve` reads it
    assert Layout.load(tmp_path / "micro-layouts" / "kitchen-table.json") == example_layout()
    turned = example_layout().turn_section(0).renamed("kitchen table")
    shelf.save(turned)  # the same name again replaces it
    assert shelf.load("Kitchen table") == turned
    with pytest.raises(LayoutError, match="already saved"):
        shelf.save(example_layout().renamed("KITCHEN  TABLE"), replace=False)
    shelf.save(example_layout().renamed("Cellar"))
    shelf.rename("cellar", "Attic")
    assert [x["name"] for x in shelf.list()] == ["Attic", "kitchen table"]
    with pytest.raises(LayoutError, match="already saved"):
        shelf.rename("Attic", "Kitchen table")
    shelf.delete("attic")
    with pytest.raises(LayoutError, match="no layout called 'attic'"):
        shelf.load("attic")
    for bad, words in [("", "give the layout a name"), ("x" * 41, "at most 40"),
                       ("!!!", "letters or digits"), (None, "give the layout a name")]:
        with pytest.raises(LayoutError, match=words):
            shelf.save(example_layout().renamed(bad) if isinstance(bad, str) else
                       Layout(example_layout().rows, bad))
    (shelf.folder / "broken.json").write_text("{")
    assert {"name": "broken", "file": "broken.json"}.items() <= shelf.list()[0].items()
    assert "not JSON" in shelf.list()[0]["error"]
