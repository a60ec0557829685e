"""The camera's calibration is applied in ``companion run``: the lens model, the exposure and
white balance locked when the colours are learned, and a Camera Module 3's fixed focus (against
the fake picamera2 of tests/fake_picamera2.py)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from fake_picamera2 import Rig
from hypothesis import given
from hypothesis import strategies as st

from companion.table import Table
from companion.vision.camera_setup import CAMERA_FORMAT, CameraSetup, CameraSetupError, check
from companion.vision.feed import CameraFeed
from companion.vision.lens import LensProfile
from companion.vision.sources import PiCameraSource, UndistortedSource, open_source


def lens_file(folder, k1=-0.2):
    profile = LensProfile(camera_matrix=np.array([[1000.0, 0, 820], [0, 1000, 616], [0, 0, 1]]),
                          dist_coeffs=np.array([k1, 0, 0, 0, 0]), image_size=(1640, 1232))
    profile.save(folder / "lens.json")


def camera_file(folder, **fields):
    (folder / "camera.json").write_text(json.dumps({"format": CAMERA_FORMAT, **fields}))


def test_no_calibration_opens_the_camera_as_it_comes(tmp_path):
    setup = CameraSetup(tmp_path)
    assert setup.options("pi") == {} and setup.options("usb:0") == {}
    assert setup.describe("pi").startswith("none")


def test_the_pi_camera_gets_its_locked_controls_focus_and_lens(tmp_path):
    lens_file(tmp_path)
    camera_file(tmp_path, controls={"AeEnable": False, "AwbEnable": False,
                                    "ExposureTime": 12000, "AnalogueGain": 1.5,
                                    "ColourGains": [1.8, 1.4]}, lens_position=1.25)
    setup = CameraSetup(tmp_path)
    opts = setup.options("pi")
    assert opts["controls"]["ColourGains"] == (1.8, 1.4) and opts["lens_position"] == 1.25
    assert isinstance(opts["lens"], LensProfile)
    assert set(setup.options("usb:0")) == {"lens"} and setup.options("sim") == {}
    assert setup.describe("pi") == ("lens model lens.json, exposure and white balance locked, "
                                    "focus fixed at 1.25 dioptres")


@pytest.mark.parametrize("fields, message", [
    ({"format": "x"}, r"camera.json: format: 'x' is not"),
    ({"controls": {"Brightness": 0.1}}, r"controls.Brightness: not a control"),
    ({"controls": {"ExposureTime": 1.5}}, r"controls.ExposureTime: 1.5 is not int"),
    ({"controls": {"AeEnable": 0}}, r"controls.AeEnable: 0 is not bool"),
    ({"controls": {"ColourGains": [1.8]}}, r"controls.ColourGains: two positive gains"),
    ({"lens_position": -1}, r"lens_position: dioptres from 0"),
    ({"lens_position": True}, r"lens_position: dioptres from 0"),
    ({"focus": 1}, r"focus: unknown field"),
])
def test_a_bad_camera_file_is_named_with_its_field(tmp_path, fields, message):
    (tmp_path / "camera.json").write_text(json.dumps({"format": CAMERA_FORMAT, **fields}))
    with pytest.raises(CameraSetupError, match=message):
        CameraSetup(tmp_path).options("pi")


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=12), inner, max_size=3), max_leaves=8)


@given(st.dictionaries(st.sampled_from(["format", "controls", "lens_position", "x"]), JSON)
       | st.fixed_dictionaries({"format": st.just(CAMERA_FORMAT),
                                "controls": st.dictionaries(st.sampled_from(
                                    ["AeEnable", "ExposureTime", "AnalogueGain",
                                     "ColourGains", "Lux"]), JSON)}))
def test_any_camera_file_is_accepted_or_refused_by_name_never_crashes(data):
    try:
        out = check(data, "camera.json")
    except CameraSetupError as e:
        assert str(e).startswith("camera.json: ")
    else:
        assert set(out) == {"controls", "lens_position"}


def test_companion_run_refuses_a_bad_calibration_before_starting(tmp_path, cli):
    frames = tmp_path / "frames"
    frames.mkdir()
    (tmp_path / "camera.json").write_text("{not json")
    code, _, err = cli("run", "--camera", str(frames), "--db", str(tmp_path / "j.db"),
                       "--port", "0")
    assert code == 2 and "camera.json: not JSON" in err


def test_locking_keeps_the_controls_and_the_next_start_applies_them(tmp_path, monkeypatch):
    rig = Rig(("imx708",))
    rig.install(monkeypatch)
    camera_file(tmp_path, lens_position=2.0)
    lens_file(tmp_path)
    setup = CameraSetup(tmp_path)
    src = open_source("pi", **setup.options("pi"))
    try:
        assert isinstance(src, UndistortedSource) and isinstance(src.inner, PiCameraSource)
        assert rig.manager[0].applied == {"AfMode": 0, "LensPosition": 2.0}
        src.read()
        locked = setup.keep_lock(src)
        assert locked["AeEnable"] is False and locked["ColourGains"] == (1.9, 1.6)
    finally:
        src.close()
    kept = json.loads((tmp_path / "camera.json").read_text())
    assert kept["lens_position"] == 2.0 and kept["controls"]["ExposureTime"] == \
        locked["ExposureTime"]
    with open_source("pi", **setup.options("pi")) as again:  # the next start
        again.read()
        assert rig.manager[0].applied == {"AfMode": 0, "LensPosition": 2.0, **locked}
    assert rig.acquired == set()
    assert setup.keep_lock(object()) is None  # a camera that cannot be locked
    closed = PiCameraSource()
    assert setup.keep_lock(closed) == {"error": "exposure and white balance not locked: "
                                                "pi: not open"}


def test_the_table_opens_its_camera_with_the_calibration(tmp_path, monkeypatch):
    rig = Rig(("imx708",))
    rig.install(monkeypatch)
    camera_file(tmp_path, controls={"AeEnable": False, "ExposureTime": 9000},
                lens_position=0.8)
    t = Table(db=str(tmp_path / "j.db"))
    feed = CameraFeed(t, "pi", interval=0.05, setup=CameraSetup(tmp_path))
    t.attach_camera(feed)
    t.start()
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and not feed.status()["frames"]:
            time.sleep(0.05)
        assert feed.status()["frames"] > 0
        assert rig.manager[0].applied == {"AeEnable": False, "ExposureTime": 9000,
                                          "AfMode": 0, "LensPosition": 0.8}
    finally:
        t.stop()
    assert rig.acquired == set()
