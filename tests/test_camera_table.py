"""The table with a real camera: frames from a folder (``companion run --camera DIR``), drawn by
the project's renderer and read by the real vision pipeline, reach the game.

Each step of a story gets its own folder of frames and its own camera feed (a folder
is a recording: it ends), attached to the running table as a camera is; the test waits on the
states the table publishes, never on sleeps.
"""

from __future__ import annotations

import io
import json
import queue
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.micro import example_layout
from companion.store import Store
from companion.table import Table
from companion.vision.feed import CameraFeed
from companion.vision.micro_render import render_micro
from companion.vision.render import render

WAIT = 60.0  # ceiling for one step: frames are rendered and read on two busy cores
TILES = ["4B", "3B", "2B", "1A"]
ROBOTS = {"red": "c2", "green": "a13", "blue": "l14", "yellow": "c15"}
FRAMES = 4  # frames of one state: the table's camera wants three alike


class Watch:
    """Every state the table publishes from now on, kept in order by a thread of its own, so
    a state that lasts an instant is not missed."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.sub, _ = table.broker.subscribe()
        self.states: list[dict[str, Any]] = [table.view()]
        self.seen = 0
        self._new = threading.Condition()
        self._done = False
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while not self._done:
            try:
                chunk = self.sub._queue.get(timeout=0.2)
            except queue.Empty:
                continue
            if not isinstance(chunk, bytes):
                return
            lines = chunk.decode().splitlines()
            if "event: state" not in lines:
                continue
            data = next(x for x in lines if x.startswith("data: "))[6:]
            with self._new:
                self.states.append(json.loads(data))
                self._new.notify_all()

    def until(self, pred: Callable[[dict[str, Any]], bool],
              timeout: float = WAIT) -> dict[str, Any]:
        """The first state from the last match on that satisfies ``pred``."""
        end = time.monotonic() + timeout
        with self._new:
            while True:
                assert not self.sub.dropped, "the watch fell behind the table"
                while self.seen < len(self.states):
                    state = self.states[self.seen]
                    self.seen += 1
                    if pred(state):
                        return state
                left = end - time.monotonic()
                last = self.states[-1]
                assert left > 0, (f"timed out; last state: phase={last.get('phase')} "
                                  f"camera={last.get('camera')} message={last.get('message')!r}")
                self._new.wait(left)

    def since(self) -> list[dict[str, Any]]:
        """Every state published so far."""
        with self._new:
            return list(self.states)

    def close(self) -> None:
        self._done = True
        self.table.broker.unsubscribe(self.sub)


def camera(state: dict[str, Any]) -> dict[str, Any]:
    """What the page is told of the camera (nothing before one is attached)."""
    return state["camera"] or {}


def record(folder: Path, shots: Iterable[np.ndarray]) -> Path:
    """A recording: the pictures in order, as a camera's folder of frames."""
    folder.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate(shots):
        cv2.imwrite(str(folder / f"{i:03d}.png"), image)
    return folder


def still(position: dict[str, Any], n: int = FRAMES, seed: int = 3, **scene: Any
          ) -> list[np.ndarray]:
    """``n`` frames of one mounted camera looking at a table that does not change: the same
    view, fresh sensor noise."""
    return [render(position, seed=seed, noise_seed=i, noise=2, **scene).image for i in range(n)]


def position(robots: dict[str, str] = ROBOTS, chip: tuple[str, str] | None = None
             ) -> dict[str, Any]:
    out: dict[str, Any] = {"board": {"tiles": TILES}, "robots": dict(robots)}
    if chip is not None:
        out["target"] = {"color": chip[0], "shape": chip[1]}
    return out


def watch_camera(table: Table, folder: Path, **kw: Any) -> CameraFeed:
    feed = CameraFeed(table, str(folder), interval=0.01, **kw)
    table.attach_camera(feed)
    feed.start()
    return feed


@pytest.fixture
def table(tmp_path):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db))
    t.start()
    feeds: list[CameraFeed] = []

    def watch(folder: Path, **kw: Any) -> CameraFeed:
        """The camera is now this recording (the one before is unplugged)."""
        for feed in feeds:
            feed.stop()
        feeds.append(watch_camera(t, folder, **kw))
        return feeds[-1]

    t.watch = watch
    yield t
    for feed in feeds:
        feed.stop()
    t.stop()


def set_up(t: Table, robots: dict[str, str] = ROBOTS, **options: Any) -> None:
    spec = t.pages.check_setup(["Ann", "Ben"], "abacus-2013", options, TILES)
    spec["robots"] = dict(robots)
    out = t.submit(spec)
    assert out.ok, out.reason


def win_the_round(t: Table, w: Watch) -> None:
    """Ann bids, the hourglass (one second) runs out, the referee says she made it."""
    assert t.submit({"type": "bid", "seat": 0, "value": 9}).ok
    w.until(lambda s: s["phase"] == "demonstrating")
    out = t.submit({"type": "verdict", "success": True, "by": "referee"})
    assert out.ok, out.reason
    w.until(lambda s: s["phase"] == "round_over")


# ---------------------------------------------------------------- the classic game


def test_before_a_game_the_camera_reads_the_tiles_and_where_the_robots_stand(table, tmp_path):
    w = Watch(table)
    table.watch(record(tmp_path / "table", still(position())))
    w.until(lambda s: camera(s).get("view") == "board")
    info = table.pages.setup_info()
    assert info["detected_tiles"] == TILES and info["tiles"] == TILES
    # setup takes the tiles the camera identified and the robots where it sees them
    spec = table.pages.check_setup(["Ann", "Ben"], "abacus-2013", {"fifth_robot": "none"}, None)
    assert spec["board"]["tiles"] == TILES and spec["robots"] == ROBOTS
    assert table.submit(spec).ok
    assert table.game.view()["robots"] == ROBOTS
    # the black fifth robot, not on the table yet, is given a free cell for the referee to set
    spec = table.pages.check_setup(["Ann", "Ben"], "abacus-2013", {}, None)
    black = spec["robots"].pop("black")
    assert spec["robots"] == ROBOTS and black not in ROBOTS.values()
    w.close()


def test_the_silver_robot_reaches_the_game_when_it_plays(table, tmp_path):
    set_up(table, fifth_robot="silver")
    w = Watch(table)
    moved = {**ROBOTS, "red": "c4", "silver": "k10"}
    table.watch(record(tmp_path / "silver", still(position(moved))))
    state = w.until(lambda s: s["robots"].get("silver") == "k10")
    assert state["robots"] == moved
    assert table.game.view()["robots"] == moved  # journaled: the robots were placed
    w.close()


def test_a_chip_laid_on_the_centre_piece_starts_the_round(table, tmp_path):
    set_up(table, timer_seconds=1)
    w = Watch(table)
    table.watch(record(tmp_path / "chip", still(position(chip=("blue", "triangle")))))
    state = w.until(lambda s: s["phase"] == "bidding")
    assert state["target"]["chip"] == "blue triangle"
    assert state["message"] == "The camera read the chip: blue triangle"
    assert table.game.view()["robots"] == ROBOTS  # the chip moved no robot
    w.close()


def test_the_camera_learns_the_tables_colours_from_the_confirmed_start(table, tmp_path):
    set_up(table, timer_seconds=60)
    w = Watch(table)
    feed = table.watch(record(tmp_path / "start", still(position(chip=("blue", "triangle")),
                                                         n=10)))
    w.until(lambda s: s["phase"] == "bidding")
    state = w.until(lambda s: bool(camera(s).get("lesson")))
    lesson = camera(state)["lesson"]
    assert set(lesson["learnt"]) | set(lesson["kept"]) == set(ROBOTS)
    assert lesson["learnt"], lesson["kept"]
    # the reader reads the round with what it learnt; the game's robots are untouched
    reader = feed._eyes["reader"]
    for c in lesson["learnt"]:
        assert reader.profile.references[c] == pytest.approx(lesson["references"][c], abs=0.06)
    assert table.game.view()["robots"] == ROBOTS
    w.close()


@pytest.mark.slow
def test_the_last_rounds_chip_is_not_revealed_again_and_a_won_chip_is_refused_once(
        table, tmp_path):
    set_up(table, timer_seconds=1)
    calls: list[tuple[Any, ...]] = []
    observe_chip = table.observe_chip
    table.observe_chip = lambda chip, **kw: (calls.append((chip, kw.get("reason"))),
                                             observe_chip(chip, **kw))
    w = Watch(table)
    blue = still(position(chip=("blue", "triangle")))
    table.watch(record(tmp_path / "reveal", blue))  # the round begins ...
    w.until(lambda s: s["phase"] == "bidding")
    win_the_round(table, w)  # ... and Ann wins the blue triangle
    # the chip still lies on the piece: the camera sees it, the round does not begin again
    table.watch(record(tmp_path / "still-there", blue))
    state = w.until(lambda s: s["chip_seen"] is not None)
    assert state["chip_seen"]["status"] == "previous" and state["phase"] == "round_over"
    # taken off and laid down again, it is refused (Ann has it) once; the next chip is revealed
    bare = still(position(), chip=False)
    red = still(position(chip=("red", "circle")))
    calls.clear()
    table.watch(record(tmp_path / "next", bare + blue + blue + red))
    refused = w.until(lambda s: "Ann has it" in s["message"])
    assert refused["phase"] == "round_over" and refused["chip_seen"]["status"] == "refused"
    state = w.until(lambda s: s["phase"] == "bidding")
    assert state["target"]["chip"] == "red circle" and state["round"] == 2
    assert calls == [(None, None), ("blue triangle", None), ("red circle", None)]
    w.close()


def test_an_unread_chip_is_shown_for_the_players_to_pick_by_hand(table, tmp_path):
    set_up(table)
    shots = [render(position(chip=("green", "hexagon")), seed=3, noise_seed=i, noise=2)
             for i in range(FRAMES)]
    frames = []
    for shot in shots:  # a smudge on the lens over the centre piece
        image = shot.image.copy()
        cell = float(np.linalg.norm(shot.corners[1] - shot.corners[0])) / 16
        cx, cy = (int(v) for v in shot.to_image([(8.0, 8.0)])[0])
        r = int(2.5 * cell)
        box = np.s_[cy - r:cy + r, cx - r:cx + r]
        image[box] = cv2.GaussianBlur(image, (0, 0), 0.2 * cell)[box]
        frames.append(image)
    w = Watch(table)
    table.watch(record(tmp_path / "smudged", frames))
    state = w.until(lambda s: s["chip_seen"] is not None)
    assert state["phase"] == "idle"  # nothing was guessed
    assert state["chip_seen"]["status"] == "unread" and state["chip_seen"]["color"] == "green"
    assert "cannot read it" in state["message"] and "Pick the chip by hand" in state["message"]
    assert "green hexagon" in state["deck"]  # the page's picker offers it
    out = table.submit({"type": "reveal", "chip": "green hexagon"})
    assert out.ok and table.view()["target"]["chip"] == "green hexagon"
    w.close()


@pytest.mark.slow
def test_a_hand_over_the_board_is_reported_hidden_and_never_moves_a_robot(table, tmp_path):
    set_up(table, timer_seconds=1)
    assert table.submit({"type": "reveal", "chip": "green circle"}).ok
    w = Watch(table)
    table.watch(record(tmp_path / "before", still(position())))
    w.until(lambda s: camera(s).get("view") == "board")
    assert table.submit({"type": "bid", "seat": 1, "value": 9}).ok
    w.until(lambda s: s["phase"] == "demonstrating")
    # a hand reaches over the board, holding the red robot away from its cell, and withdraws
    lifted = [render(position({**ROBOTS, "red": "c6"}), seed=s, noise=2, hands=1)
              for s in (5, 6, 7, 8)]
    assert all(shot.occluded for shot in lifted)
    table.watch(record(tmp_path / "hand", [s.image for s in lifted] + still(position())))
    w.until(lambda s: camera(s).get("view") == "hidden")
    state = w.until(lambda s: camera(s).get("view") == "board")
    assert state["demonstrating"]["count"] == 0 and state["phase"] == "demonstrating"
    assert all(s["robots"]["red"] == "c2" for s in w.since() if s.get("robots"))
    assert table.game.view()["robots"] == ROBOTS
    w.close()


@pytest.mark.slow
def test_colours_calibrated_from_the_camera_are_kept_for_the_next_start(table, tmp_path):
    from companion.app import load_colours

    set_up(table)
    w = Watch(table)
    kept = tmp_path / "colours.json"
    frames = record(tmp_path / "calibrate", still(position()))
    feed = table.watch(frames, profile_path=kept)
    w.until(lambda s: camera(s).get("view") == "board")
    assert feed.status()["read_ms"] > 0  # how long a frame takes, shown with the camera
    learned = table.pages.calibrate_colors()
    assert learned["saved"] == str(kept) and set(ROBOTS) <= set(learned["robots"])
    # the next start reads the table with the colours learned here
    profile = load_colours(kept, given=True)
    assert profile.references["red"] == pytest.approx(feed.profile.references["red"], abs=0.01)
    moved = {**ROBOTS, "yellow": "c13"}
    table.watch(record(tmp_path / "later", still(position(moved))), profile=profile)
    w.until(lambda s: s["robots"]["yellow"] == "c13")
    w.close()


# ---------------------------------------------------------------- a camera that fails


def test_an_unreadable_frame_is_skipped_with_a_message_and_the_game_goes_on(table, tmp_path):
    set_up(table)
    moved = {**ROBOTS, "red": "c4"}
    folder = record(tmp_path / "broken", still(position()) + still(position(moved)))
    (folder / "003.png").write_bytes(b"not a picture")  # one frame the camera garbled
    w = Watch(table)
    table.watch(folder)
    bad = w.until(lambda s: camera(s).get("error") and "003.png" in camera(s).get("error"))
    assert "skipped" in bad["camera"]["error"]
    state = w.until(lambda s: s["robots"]["red"] == "c4")
    assert state["camera"]["skipped"] == 1 and table.game.view()["robots"] == moved
    w.close()


def test_a_camera_that_is_gone_says_so_and_the_game_is_played_by_hand(table, tmp_path):
    w = Watch(table)
    table.watch(tmp_path / "unplugged")
    state = w.until(lambda s: camera(s).get("error") is not None)
    assert "unplugged" in state["camera"]["error"] and "trying again" in state["camera"]["error"]
    set_up(table)
    assert table.submit({"type": "reveal"}).ok
    assert table.view()["phase"] == "bidding"
    w.close()


def test_a_recording_that_ends_leaves_the_game_as_it_was(table, tmp_path):
    set_up(table)
    w = Watch(table)
    table.watch(record(tmp_path / "short", still(position(), n=2)))
    state = w.until(lambda s: camera(s).get("error") and "ended" in camera(s).get("error"))
    assert state["robots"] == ROBOTS and table.submit({"type": "reveal"}).ok
    w.close()


def test_a_camera_facing_no_board_says_why_in_the_pages_language(table, tmp_path):
    # the page is told why in English (the command line's words) and as a message beside it,
    # which a German or French page says in its own words
    from test_messages import english_left

    from companion import i18n

    w = Watch(table)
    table.watch(record(tmp_path / "empty", [np.full((480, 640, 3), 128, np.uint8)]))
    state = w.until(lambda s: camera(s).get("view") == "unseen" and camera(s).get("error"))
    seen = state["camera"]
    assert seen["error"].startswith("camera: no board in view")
    assert seen["error_msg"]["key"] == "camera.refused"
    assert seen["error_msg"]["args"]["why"]["key"].startswith("vision.")
    german = i18n.render("de", seen["error_msg"])
    assert german.startswith("Kamera: kein Spielplan im Bild") and not english_left(german)
    french = i18n.render("fr", seen["error_msg"])
    assert french.startswith("Caméra : aucun plateau en vue") and not english_left(french)
    ended = w.until(lambda s: "ended" in (camera(s).get("error") or ""))
    assert i18n.render("de", ended["camera"]["error_msg"]).endswith("die Aufnahme ist zu Ende")
    w.close()


# ---------------------------------------------------------------- Micro Robots

LAYOUT = example_layout()


def micro_frames(space: str | None, n: int = FRAMES, seed: int = 3, **scene: Any
                 ) -> list[np.ndarray]:
    return [render_micro(LAYOUT, space, seed=seed, noise_seed=i, noise=2, **scene).image
            for i in range(n)]


def micro_set_up(t: Table) -> None:
    spec = t.pages.check_micro_setup(["Ann", "Bo"], LAYOUT.to_dict(), {})
    assert t.submit(spec).ok
    assert t.submit({"type": "place", "start": "pink1", "target": "white2"}).ok


@pytest.mark.slow
def test_a_micro_landing_is_read_from_the_frames(table, tmp_path):
    micro_set_up(table)
    assert table.submit({"type": "call", "seat": 0, "number": 5}).ok
    w = Watch(table)
    hand = [render_micro(LAYOUT, "pink6", seed=s, noise=2, hands=1) for s in (3, 4, 5)]
    assert all(shot.occluded for shot in hand)
    frames = micro_frames("pink1") + [s.image for s in hand] + micro_frames("pink6")
    table.watch(record(tmp_path / "landing", frames))
    w.until(lambda s: s["seen"] == "pink1")  # the robot seen on its start: no landing
    hidden = w.until(lambda s: camera(s).get("view") == "hidden")
    assert hidden["demonstrating"]["landings"] == []  # a hand over the board lands nothing
    state = w.until(lambda s: s["demonstrating"] and s["demonstrating"]["landings"])
    assert state["demonstrating"]["landings"] == ["pink6"] and state["seen"] == "pink6"
    w.close()


def test_the_camera_proposes_the_micro_layout_it_reads_in_a_frame(tmp_path):
    db = tmp_path / "j.db"
    t = Table(open_store=lambda: Store(db, now=time.monotonic()), db=str(db),
              preset="micro-robots")
    t.start()
    feed = watch_camera(t, record(tmp_path / "board", micro_frames("pink1", n=1)))
    try:
        w = Watch(t)
        state = w.until(lambda s: camera(s).get("view") == "unseen")
        assert "Layouts" in state["camera"]["note"]  # no layout yet: nothing is followed
        proposal = t.pages.read_layout()
        assert proposal["rows"] == [[s.name for s in row] for row in LAYOUT.rows]
        assert proposal["problems"] == [] and proposal["robot"] == "pink1"
        assert t.view()["proposal"] and t.pages.proposal() is proposal
        w.close()
    finally:
        feed.stop()
        t.stop()


def test_a_classic_frame_is_no_micro_layout(table, tmp_path):
    feed = table.watch(record(tmp_path / "classic", still(position(), n=1)))
    w = Watch(table)
    w.until(lambda s: "ended" in (camera(s).get("error") or ""))  # its one frame is read
    with pytest.raises(ValueError, match="cannot read a Micro Robots board") as refused:
        table.pages.read_layout()
    from companion import i18n  # the Layouts page says why in its own language

    german = i18n.render("de", i18n.said(refused.value))
    assert german.startswith("die Kamera kann keinen Micro-Robots-Spielplan lesen: kein "), german
    assert "Spielplan im Bild" in german and "board" not in german
    assert table.pages.proposal() is None and feed.status()["frames"] == 1
    w.close()


@pytest.mark.slow
def test_the_pictures_of_a_real_camera_show_what_it_read(table, tmp_path):
    set_up(table)
    w = Watch(table)
    feed = table.watch(record(tmp_path / "shown", still(position())))
    w.until(lambda s: camera(s).get("view") == "board")
    plain = cv2.imdecode(np.frombuffer(feed.jpeg(overlay=False), np.uint8), cv2.IMREAD_COLOR)
    drawn = cv2.imdecode(np.frombuffer(feed.jpeg(overlay=True), np.uint8), cv2.IMREAD_COLOR)
    assert plain.shape == drawn.shape == (960, 1280, 3)
    # the outline and the robots' labels are drawn over the picture
    assert np.mean(np.abs(plain.astype(int) - drawn.astype(int)) > 40) > 0.002
    found = feed.detected()
    assert found["robots"] == ROBOTS and found["tiles"] == TILES and len(found["corners"]) == 4
    w.close()



# ---------------------------------------------------------------- companion run


def test_companion_run_reads_a_folder_of_frames_with_the_tables_colours(tmp_path):
    from companion.app import RunOptions, build
    from companion.vision.colours import Profile

    kept = tmp_path / "colours.json"  # beside the journal: where the page's calibration goes
    Profile().for_robots(["red", "green", "blue", "yellow", "silver"]).save(kept)
    folder = record(tmp_path / "frames", still(position(), n=1))
    table, _, _ = build(RunOptions(camera=str(folder), db=str(tmp_path / "j.db"), port=0),
                        out=io.StringIO())
    try:
        assert table.camera.reads_frames and table.camera.profile_path == kept
        assert "silver" in table.camera.profile.robots
    finally:
        table.hardware.close()


@pytest.mark.parametrize("content, words", [(None, "no such file"), ("{}", "format"),
                                            ("not json", "not JSON")])
def test_a_colour_profile_that_cannot_be_used_stops_companion_run_at_once(
        tmp_path, capsys, content, words):
    from companion.cli import main

    path = tmp_path / "colours.json"
    if content is not None:
        path.write_text(content)
    code = main(["run", "--camera", str(tmp_path), "--db", str(tmp_path / "j.db"),
                 "--colours", str(path), "--port", "0", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "--colours" in err and words in err
