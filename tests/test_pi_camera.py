"""The Pi camera source against a faithful fake of picamera2 (tests/fake_picamera2.py): every
way of opening, failing and timing out leaves the camera released, so the next open works; an
import of picamera2 that fails in any way says what to do; OpenCV gets only the parameters
its backend takes."""

from __future__ import annotations

import sys
import threading
import time

import cv2
import numpy as np
import pytest
from fake_picamera2 import Rig
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.vision.sources import (
    FrameSourceError,
    OpenCVSource,
    PiCameraSource,
    capture_attempts,
    import_picamera2,
    open_source,
)


@pytest.fixture
def rig(monkeypatch):
    r = Rig()
    r.install(monkeypatch)
    yield r
    r.resume_captures()


def wait_until(cond, seconds=5.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return cond()


def test_the_pi_camera_gives_bgr_frames_at_twice_the_readers_width_and_releases_it(rig):
    with open_source("pi") as cam:
        assert isinstance(cam, PiCameraSource) and rig.acquired == {0}
        frame = cam.read()
        assert frame.image.shape == (960, 1280, 3) and frame.image.dtype == np.uint8
        assert frame.image.flags["C_CONTIGUOUS"]
        assert int(frame.image[0, 0, 0]) == 1 and int(frame.image[0, 0, 2]) == 200
        assert cam.read().index == 1
    assert rig.acquired == set()
    with open_source("pi", size=(1640, 1232)) as cam:  # another size, the same camera again
        assert cam.read().image.shape == (1232, 1640, 3)
    assert rig.acquired == set() and rig.opened == 2


@pytest.mark.parametrize("step", ["configure", "start", "set_controls"])
def test_a_camera_that_fails_part_way_through_opening_is_released_and_opens_next_time(
        rig, step):
    rig.fail[step] = RuntimeError(f"{step} went wrong")
    cam = PiCameraSource(controls={"AeEnable": False, "ExposureTime": 20000})
    with pytest.raises(FrameSourceError, match=f"pi: .*{step} went wrong"):
        cam.open()
    assert rig.acquired == set() and not cam.is_open
    with pytest.raises(FrameSourceError, match=f"{step} went wrong"):
        cam.open()  # a retry meets the fault, not a camera still held by the first try
    del rig.fail[step]
    with cam:
        assert cam.read().image.shape == (960, 1280, 3)
        assert rig.manager[0].applied == {"AeEnable": False, "ExposureTime": 20000}
    assert rig.acquired == set()


def test_a_busy_camera_is_named_with_what_may_hold_it(rig, monkeypatch):
    other = sys.modules["picamera2"].Picamera2(0)  # another program has the camera
    with pytest.raises(FrameSourceError, match=r"pi: no camera found or it is busy .*rpicam"):
        open_source("pi")
    other.close()
    with open_source("pi") as cam:
        cam.read()
    with pytest.raises(FrameSourceError, match="no camera found"):
        open_source("pi", camera=1)  # only one camera on the ribbon
    assert rig.acquired == set()


def test_a_read_that_times_out_releases_the_camera_once_the_driver_lets_go(rig):
    cam = PiCameraSource(timeout=0.3).open()
    cam.read()
    rig.hang_captures()
    t0 = time.monotonic()
    with pytest.raises(FrameSourceError, match=r"pi: no frame within 0.3 s"):
        cam.read()
    assert time.monotonic() - t0 < 2.0
    assert not cam.is_open
    cam.close()
    assert rig.acquired == {0}  # the capture is still stuck inside the driver
    rig.resume_captures()
    assert wait_until(lambda: rig.acquired == set())
    with cam.open():  # and the source opens again
        assert cam.read().image.shape == (960, 1280, 3)
    assert rig.acquired == set()


@pytest.mark.slow
def test_a_start_that_finishes_after_its_deadline_is_closed_when_it_does(rig):
    rig.start_delay = 2.0
    cam = PiCameraSource(open_timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(FrameSourceError, match="did not start within"):
        cam.open()
    assert time.monotonic() - t0 < 1.5
    assert rig.acquired == {0}  # still opening
    assert wait_until(lambda: rig.opened == 1 and rig.acquired == set(), 10.0)
    rig.start_delay = 0.0
    with cam.open():
        cam.read()
    assert rig.acquired == set() and rig.opened == 2


def test_a_failed_read_and_a_reopen_keep_the_controls_and_the_lock(rig):
    # the rig is a Camera Module 2: no focus to set
    cam = PiCameraSource(lens_position=2.0).open()
    assert cam.skipped_controls == ["AfMode", "LensPosition"]
    cam.read()
    locked = cam.lock()
    assert locked["AeEnable"] is False and locked["AwbEnable"] is False
    assert locked["ColourGains"] == (1.9, 1.6) and locked["AnalogueGain"] == 2.5
    rig.fail["capture"] = RuntimeError("dequeue failed")
    with pytest.raises(FrameSourceError, match="dequeue failed"):
        cam.read()
    del rig.fail["capture"]
    cam.reopen()
    assert rig.acquired == {0} and rig.opened == 2
    applied = rig.manager[0].applied
    assert applied == {k: locked[k] for k in locked}  # the lock survives the reopen
    assert cam.locked_controls()["ExposureTime"] == locked["ExposureTime"]
    cam.close()
    assert rig.acquired == set()


def test_camera_module_3_gets_its_focus_fixed(monkeypatch):
    rig = Rig(("imx708",))
    rig.install(monkeypatch)
    with PiCameraSource(lens_position=3.5) as cam:
        assert cam.skipped_controls == []
        assert rig.manager[0].applied == {"AfMode": 0, "LensPosition": 3.5}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["open", "read", "close", "fail-configure", "fail-start",
                                 "fail-capture", "heal"]), max_size=12))
def test_whatever_happens_closing_the_source_leaves_the_camera_free(steps):
    rig = Rig()
    mp = pytest.MonkeyPatch()
    rig.install(mp)
    cam = PiCameraSource(timeout=1.0)
    try:
        for step in steps:
            if step.startswith("fail-"):
                rig.fail[step[5:]] = RuntimeError(step)
            elif step == "heal":
                rig.fail.clear()
            else:
                try:
                    getattr(cam, step)()
                except FrameSourceError:
                    pass
            assert len(rig.acquired) <= 1
        cam.close()
        assert rig.acquired == set()
    finally:
        mp.undo()


# ---------------------------------------------------------------- importing picamera2


def _package(tmp_path, monkeypatch, body):
    pkg = tmp_path / "picamera2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(body)
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))


def test_picamera2_built_for_another_numpy_says_to_install_simplejpeg(tmp_path, monkeypatch):
    # what Debian's python3-simplejpeg raises under the venv's numpy 2 (picamera2 #1088)
    _package(tmp_path, monkeypatch, 'raise ValueError("numpy.dtype size changed, may indicate '
                                    'binary incompatibility. Expected 96 from C header, got 88 '
                                    'from PyObject")\n')
    with pytest.raises(FrameSourceError, match=r"pi: picamera2 cannot be imported: a module "
                                               r"built for another numpy.*pip install simplejpeg"):
        open_source("pi")


@pytest.mark.parametrize("body, message", [
    ("raise RuntimeError('libcamera: no IPA')\n",
     r"pi: picamera2 cannot be imported \(RuntimeError: libcamera: no IPA\); check with"),
    ("import simplejpeg_not_here\n",
     r"pi: picamera2 cannot be imported: No module named 'simplejpeg_not_here'"),
    ("raise ImportError('numpy.core.multiarray failed to import')\n",
     r"another numpy.*simplejpeg"),
    ("import libcamera_not_here as libcamera\n", r"cannot be imported"),
])
def test_every_failure_of_the_import_is_a_frame_source_error(tmp_path, monkeypatch, body,
                                                               message):
    _package(tmp_path, monkeypatch, body)
    cam = PiCameraSource()
    with pytest.raises(FrameSourceError, match=message):
        cam.open()
    assert not cam.is_open


def test_no_picamera2_at_all_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import then raises ImportError
    with pytest.raises(FrameSourceError, match=r"picamera2 is not installed .*"
                                               r"--no-install-recommends python3-picamera2"):
        import_picamera2()


# ---------------------------------------------------------------- OpenCV's backends


def test_a_camera_index_gets_no_ffmpeg_only_parameters():
    attempts = capture_attempts(0, 3.0)
    assert attempts[0] == ((cv2.CAP_V4L2, []) if sys.platform.startswith("linux")
                           else (cv2.CAP_ANY, []))
    assert all(params == [] for _, params in attempts)


def test_a_stream_times_out_on_ffmpeg_and_a_file_falls_back_to_other_backends():
    (api, params), = capture_attempts("rtsp://cam.local/stream", 1.5)
    assert api == cv2.CAP_FFMPEG
    assert params == [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 1500, cv2.CAP_PROP_READ_TIMEOUT_MSEC, 1500]
    attempts = capture_attempts("game.mp4", 2.0)
    assert attempts[0][0] == cv2.CAP_FFMPEG and attempts[1] == (cv2.CAP_ANY, [])


def test_each_backend_accepts_the_parameters_it_is_given(tmp_path):
    """FFmpeg opens a real video with the timeouts it is given; the V4L2 attempt carries no
    parameter it would refuse (no camera here, so it only fails to find one)."""
    path = tmp_path / "v.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for _ in range(3):
        writer.write(np.full((48, 64, 3), 90, np.uint8))
    writer.release()
    api, params = capture_attempts(str(path), 2.0)[0]
    cap = cv2.VideoCapture(str(path), api, params)
    assert cap.isOpened() and cap.getBackendName() == "FFMPEG"
    cap.release()
    with OpenCVSource(str(path)) as src:
        assert src.read().image.shape == (48, 64, 3)
    with pytest.raises(FrameSourceError, match="usb:63: no camera at that index"):
        OpenCVSource(63, timeout=1.0).open()


def test_the_open_and_close_of_a_pi_camera_do_not_leak_threads(rig):
    before = threading.active_count()
    for _ in range(5):
        with PiCameraSource() as cam:
            cam.read()
    assert wait_until(lambda: threading.active_count() <= before)
