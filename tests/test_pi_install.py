"""The Pi's install script and service unit: the script parses, and the unit starts a command
the companion accepts, as the user the script creates."""

from __future__ import annotations

import configparser
import os
import shlex
import subprocess
import tomllib
from pathlib import Path

import pytest

from companion.cli import build_parser, main

HARDWARE = Path(__file__).resolve().parents[1] / "hardware"


def test_the_install_script_is_valid_bash_with_picamera2_from_apt():
    script = HARDWARE / "install-pi.sh"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    text = script.read_text()
    assert "--system-site-packages" in text and "python3-picamera2" in text


def test_the_service_runs_the_companion_as_the_unprivileged_user_and_restarts_it():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(HARDWARE / "companion.service")
    service = unit["Service"]
    assert service["User"] == "companion" and service["Restart"] == "on-failure"
    argv = shlex.split(service["ExecStart"])
    assert argv[0].endswith("/venv/bin/companion")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run" and args.camera == "pi" and args.port == 8000
    assert "useradd" in (HARDWARE / "install-pi.sh").read_text()


def _unit():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(HARDWARE / "companion.service")
    return unit


def test_a_fault_restarting_cannot_mend_stops_the_service_and_start_does_not_wait_for_wifi():
    unit = _unit()
    assert unit["Service"]["RestartPreventExitStatus"].split() == ["2"]
    assert "network-online.target" not in unit["Unit"].get("After", "")
    assert "network-online.target" not in unit["Unit"].get("Wants", "")
    # exit status 2 is what the command line gives for a bad pins file
    assert main(["run", "--pins", "/nonexistent/pins.toml"]) == 2


def test_picamera2_and_lgpio_come_from_apt_without_recommends_and_simplejpeg_from_pypi():
    text = (HARDWARE / "install-pi.sh").read_text()
    apt = " ".join(line.strip(" \\") for line in text.split("apt-get install", 1)[1]
                   .split("\n\n", 1)[0].splitlines())
    assert "--no-install-recommends" in apt.split("python3-picamera2")[0]
    assert "python3-lgpio" in apt
    project = tomllib.loads((HARDWARE.parent / "pyproject.toml").read_text())["project"]
    pi = project["optional-dependencies"]["pi"]
    assert any(r.startswith("simplejpeg>=") for r in pi)
    assert not any(r.startswith("lgpio") for r in pi + project["dependencies"])
    numpy = next(r for r in project["dependencies"] if r.startswith("numpy"))
    assert numpy.startswith("numpy>=2.")  # apt's simplejpeg is replaced, so numpy 2 it is


@pytest.mark.parametrize("arch", ["armhf", "armel"])
def test_the_install_script_refuses_a_32_bit_system_before_touching_anything(tmp_path, arch):
    fake = tmp_path / "dpkg"
    fake.write_text(f"#!/bin/sh\necho {arch}\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(HARDWARE / "install-pi.sh")], capture_output=True,
                          text=True, env=env, timeout=30)
    assert done.returncode == 2
    assert f"{arch}: 32-bit Raspberry Pi OS is not supported" in done.stderr
    assert done.stdout == ""
