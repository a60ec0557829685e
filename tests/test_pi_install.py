"""The Pi's install script and service unit: the script parses, and the unit starts a command
the companion accepts, as the user the script creates."""

from __future__ import annotations

import configparser
import shlex
import subprocess
from pathlib import Path

from companion.cli import build_parser

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
