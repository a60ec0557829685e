"""Frame sources give BGR frames with times, name what failed, never hang, and reopen."""

from __future__ import annotations

import importlib.util
import socket
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.rules import Position
from companion.vision.sources import (
    EndOfFrames,
    FrameSource,
    FrameSourceError,
    ImageFileSource,
    ImageFolderSource,
    OpenCVSource,
    PiCameraSource,
    RenderedSource,
    describe_spec,
    load_image,
    open_source,
)

POSITION = {
    "board": {"tiles": ["1A", "4B", "3B", "2B"]},
    "robots": {"red": "o14", "green": "b14", "blue": "n5", "yellow": "p16"},
    "target": {"color": "blue", "shape": "triangle"},
}


def picture(level: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    img = np.zeros((size[1], size[0], 3), np.uint8)
    img[:] = (level, 255 - level, 128)
    return img


def write_video(path: Path, levels: list[int]) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for lv in levels:
        writer.write(picture(lv))
    writer.release()
    return path


# ---------------------------------------------------------------- still pictures


def test_a_picture_file_gives_the_same_frame_with_rising_times(tmp_path):
    f = tmp_path / "table.png"
    cv2.imwrite(str(f), picture(40))
    with open_source(str(f)) as cam:
        assert isinstance(cam, ImageFileSource)
        a, b = cam.read(), cam.read()
    assert a.image.shape == (48, 64, 3) and a.image.dtype == np.uint8
    np.testing.assert_array_equal(a.image, picture(40))
    assert b.t >= a.t and (a.index, b.index) == (0, 1)
    assert a.source == str(f)
    assert not cam.is_open


@pytest.mark.parametrize("kind", ["grey", "rgba", "16bit"])
def test_pictures_of_other_kinds_become_bgr_8bit(tmp_path, kind):
    f = tmp_path / f"{kind}.png"
    if kind == "grey":
        cv2.imwrite(str(f), np.full((20, 30), 77, np.uint8))
    elif kind == "rgba":
        cv2.imwrite(str(f), np.full((20, 30, 4), 77, np.uint8))
    else:
        cv2.imwrite(str(f), np.full((20, 30, 3), 77 * 256, np.uint16))
    img = load_image(f)
    assert img.shape == (20, 30, 3) and img.dtype == np.uint8
    assert int(img.mean()) == 77


def test_a_missing_or_unreadable_file_is_named(tmp_path):
    with pytest.raises(FrameSourceError, match="no such file or folder"):
        open_source(str(tmp_path / "nope.jpg"))
    with pytest.raises(FrameSourceError, match="nope.jpg: no such file"):
        ImageFileSource(tmp_path / "nope.jpg").open()
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"this is not a jpeg")
    with pytest.raises(FrameSourceError, match="broken.jpg: not a picture"):
        open_source(str(bad))
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(FrameSourceError, match="empty.png"):
        open_source(str(empty))


# ---------------------------------------------------------------- folders


def test_a_folder_plays_its_pictures_in_natural_order_then_ends(tmp_path):
    for n in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{n}.png"), picture(n * 10))
    (tmp_path / "notes.txt").write_text("not a picture")
    with open_source(str(tmp_path)) as cam:
        assert isinstance(cam, ImageFolderSource)
        levels = [int(f.image[0, 0, 0]) for f in cam.frames()]
        assert levels == [10, 20, 100]
        with pytest.raises(EndOfFrames, match="after 3 pictures"):
            cam.read()
        # reopening starts again from the first picture
        cam.reopen()
        assert int(cam.read().image[0, 0, 0]) == 10


def test_a_looping_folder_starts_again(tmp_path):
    for n in (1, 2):
        cv2.imwrite(str(tmp_path / f"f{n}.png"), picture(n))
    with ImageFolderSource(tmp_path, loop=True) as cam:
        assert [int(cam.read().image[0, 0, 0]) for _ in range(5)] == [1, 2, 1, 2, 1]


def test_a_bad_picture_in_a_folder_is_named_and_the_rest_still_play(tmp_path):
    cv2.imwrite(str(tmp_path / "f1.png"), picture(1))
    (tmp_path / "f2.png").write_bytes(b"garbage")
    cv2.imwrite(str(tmp_path / "f3.png"), picture(3))
    with ImageFolderSource(tmp_path) as cam:
        assert int(cam.read().image[0, 0, 0]) == 1
        with pytest.raises(FrameSourceError, match="f2.png"):
            cam.read()
        assert int(cam.read().image[0, 0, 0]) == 3


def test_an_empty_or_missing_folder_is_an_error(tmp_path):
    with pytest.raises(FrameSourceError, match="no pictures"):
        ImageFolderSource(tmp_path).open()
    with pytest.raises(FrameSourceError, match="no such folder"):
        ImageFolderSource(tmp_path / "missing").open()


# ---------------------------------------------------------------- videos


def test_a_video_plays_in_order_ends_and_reopens(tmp_path):
    video = write_video(tmp_path / "demo.avi", [0, 60, 120, 180, 240])
    cam = open_source(str(video))
    assert isinstance(cam, OpenCVSource)
    frames = list(cam.frames())
    assert len(frames) == 5
    levels = [int(f.image[..., 0].mean()) for f in frames]
    assert levels == sorted(levels) and levels[-1] - levels[0] > 200
    assert all(b.t >= a.t for a, b in zip(frames, frames[1:], strict=False))
    with pytest.raises(EndOfFrames, match="end of video after 5 frames"):
        cam.read()
    cam.reopen()
    assert abs(int(cam.read().image[..., 0].mean()) - levels[0]) < 8
    cam.close()
    cam.close()  # twice is harmless


def test_a_looping_video_goes_round(tmp_path):
    video = write_video(tmp_path / "loop.avi", [0, 200])
    with open_source(str(video), loop=True) as cam:
        levels = [int(cam.read().image[..., 0].mean()) for _ in range(5)]
    assert levels[0] < 30 and levels[1] > 170 and levels[2] < 30


def test_an_unreadable_video_is_named(tmp_path):
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00" * 100)
    with pytest.raises(FrameSourceError, match="broken.mp4: cannot be opened as a video"):
        open_source(str(bad))
    with pytest.raises(FrameSourceError, match="no such video file"):
        OpenCVSource(str(tmp_path / "gone.mp4")).open()


def test_a_missing_usb_camera_is_a_clear_error():
    with pytest.raises(FrameSourceError, match="usb:63: no camera"):
        open_source("usb:63", timeout=2)


def test_a_stalled_stream_gives_up_instead_of_hanging():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:  # accepts and never answers
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        start = time.monotonic()
        with pytest.raises(FrameSourceError, match=f"127.0.0.1:{port}"):
            open_source(f"http://127.0.0.1:{port}/stream.mjpg", timeout=1.0)
        assert time.monotonic() - start < 6.0
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        server.close()


def test_a_stream_that_stalls_after_some_frames_raises_within_its_deadline():
    ok, jpg = cv2.imencode(".jpg", picture(128))
    jpeg = jpg.tobytes()
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    port = server.getsockname()[1]
    held: list[socket.socket] = []

    def serve() -> None:  # an MJPEG stream that sends three frames and then goes quiet
        try:
            conn, _ = server.accept()
        except OSError:
            return
        held.append(conn)
        conn.recv(4096)
        conn.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace; "
                     b"boundary=frame\r\n\r\n")
        for _ in range(3):
            conn.sendall(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n"
                         % len(jpeg) + jpeg + b"\r\n")

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    cam = open_source(f"http://127.0.0.1:{port}/live.mjpg", timeout=1.0)
    try:
        got = 0
        start = time.monotonic()
        with pytest.raises(FrameSourceError, match=f"127.0.0.1:{port}"):
            for _ in range(10):
                cam.read()
                got += 1
                start = time.monotonic()
        assert got >= 1
        assert time.monotonic() - start < 3.5
        assert not cam.is_open
        with pytest.raises(FrameSourceError, match="reopen"):
            cam.read()
    finally:
        cam.close()
        for c in held:
            c.close()
        server.close()
        t.join(timeout=2)


# ---------------------------------------------------------------- the contract


class Flaky(FrameSource):
    """A source whose second read fails, as a camera that is unplugged would."""

    name = "flaky"

    def __init__(self) -> None:
        super().__init__()
        self.opens = 0

    def _open(self) -> None:
        self.opens += 1
        self.reads = 0

    def _read(self):
        self.reads += 1
        if self.reads == 2:
            raise OSError("device vanished")
        return np.zeros((4, 4, 3), np.uint8), time.monotonic(), None


def test_a_failed_source_says_so_until_it_is_reopened():
    src = Flaky()
    with pytest.raises(FrameSourceError, match="not open"):
        src.read()
    src.open()
    src.read()
    with pytest.raises(FrameSourceError, match="flaky: read failed: device vanished"):
        src.read()
    assert not src.is_open
    with pytest.raises(FrameSourceError, match="failed earlier .*reopen"):
        src.read()
    src.open()
    assert src.opens == 2 and src.read().index == 0
    src.close()


# ---------------------------------------------------------------- the Pi camera


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None,
                    reason="picamera2 is installed here")
def test_pi_camera_without_picamera2_says_how_to_get_it():
    with pytest.raises(FrameSourceError, match="picamera2 is not installed"):
        open_source("pi")
    cam = PiCameraSource()
    with pytest.raises(FrameSourceError, match="pi: picamera2"):
        with cam:
            pass
    assert not cam.is_open


# ---------------------------------------------------------------- the renderer


def test_the_simulated_camera_renders_the_current_position():
    state = {"pos": Position.from_dict(POSITION)}
    with open_source("sim", position_fn=lambda: state["pos"], size=(320, 240),
                     scene=None) as cam:
        assert isinstance(cam, RenderedSource)
        a = cam.read()
        state["pos"] = state["pos"].with_robots({**state["pos"].robots,
                                                 "red": state["pos"].board.cell("a1")})
        b = cam.read()
    assert a.image.shape == (240, 320, 3)
    assert a.truth.robots["red"] != b.truth.robots["red"]
    np.testing.assert_array_equal(a.truth.corners, b.truth.corners)  # a mounted camera


def test_the_simulated_camera_varies_only_its_noise_and_shows_hands_on_cue():
    from companion.vision.render import Scene

    pos = Position.from_dict(POSITION)
    hands = {"n": 0}
    src = RenderedSource(lambda: pos, scene=Scene(noise=4), size=(320, 240),
                         scene_fn=lambda: {"hands": hands["n"]})
    with src:
        a, b = src.read(), src.read()
        hands["n"] = 1
        c = src.read()
    assert not np.array_equal(a.image, b.image)
    assert np.abs(a.image.astype(int) - b.image.astype(int)).mean() < 10
    assert not a.truth.occluded and c.truth.occluded


def test_the_simulated_camera_keeps_a_frame_rate():
    pos = Position.from_dict(POSITION)
    with RenderedSource(lambda: pos, size=(160, 120), fps=20) as cam:
        frames = [cam.read() for _ in range(4)]
    gaps = np.diff([f.t for f in frames])
    assert gaps.min() >= 0.045


# ---------------------------------------------------------------- specifications


@pytest.mark.parametrize("spec,message", [
    ("", "give pi, usb:N"), ("usb:x", "usb:N with N a number"), ("sim", "needs a position"),
])
def test_bad_specifications_are_value_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        open_source(spec)


def test_specifications_are_described(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), picture(1))
    assert describe_spec("pi") == "Raspberry Pi camera"
    assert describe_spec("usb:0") == "USB camera"
    assert describe_spec("sim") == "simulated table"
    assert describe_spec("rtsp://cam/1") == "stream"
    assert describe_spec(str(tmp_path)) == "folder of pictures"
    assert describe_spec(str(tmp_path / "a.png")) == "picture"
    assert describe_spec("game.mp4") == "video file"
    src = open_source(str(tmp_path / "a.png"), open_now=False)
    assert not src.is_open and "closed" in repr(src)


# ---------------------------------------------------------------- a calibrated lens


def test_a_lens_profile_straightens_every_frame(tmp_path):
    from companion.vision.lens import LensProfile
    from companion.vision.markers import detect_markers
    from companion.vision.render import Scene

    pos = Position.from_dict(POSITION)
    bent = Scene(tilt=10, rotation=20, markers=True, distortion=-0.25)
    probe = RenderedSource(lambda: pos, scene=bent, size=(960, 720))
    with probe:
        truth = probe.read().truth
    LensProfile(truth.camera_matrix, truth.dist_coeffs, (960, 720)).save(tmp_path / "lens.json")
    src = open_source("sim", position_fn=lambda: pos, scene=bent, size=(960, 720),
                      lens=str(tmp_path / "lens.json"))
    with src:
        frame = src.read()
    found = detect_markers(frame.image)
    assert sorted(found) == [0, 1, 2, 3]
    pinhole = {k: np.asarray(v) for k, v in marker_pinhole(frame.truth).items()}
    for k, c in found.items():  # the frame now matches the pinhole homography
        np.testing.assert_allclose(c, pinhole[k], atol=1.5)
    # and differs from the bent picture's truth
    assert max(np.abs(found[k] - frame.truth.markers[k]).max() for k in found) > 5
    with pytest.raises(FrameSourceError, match="lens: .*no such lens profile"):
        open_source("sim", position_fn=lambda: pos, lens=str(tmp_path / "none.json"))


def marker_pinhole(truth) -> dict[int, np.ndarray]:
    """Where the markers lie in the undistorted picture: through the homography alone."""
    from companion.vision.render import marker_layout

    return {k: cv2.perspectiveTransform(q.reshape(-1, 1, 2), truth.homography).reshape(-1, 2)
            for k, q in marker_layout(truth.board).items()}
