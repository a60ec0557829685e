"""Every example in README.md works as written.

Each ``sh`` code block is split into its commands (``\\`` continues a line, ``&&`` chains);
each ``companion …`` command (also as ``.venv/bin/companion``) runs and must exit 0, and a
``text`` block right after a ``sh`` block is what its last command prints. ``companion run``
is started for real, must serve the page, and is stopped with Ctrl-C. The commands that install
things are skipped by name, each with its reason; any other command is a failure until it is
either a ``companion`` command or named here. Each ``json`` block is a position file.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.cli import main
from companion.rules import Position

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

SKIPPED = {
    "python3 -m venv": "makes the virtual environment these tests already run in",
    ".venv/bin/pip install": "installs the package these tests already import",
    ".venv/bin/python -m pytest": "is this test suite itself",
    "sudo hardware/install-pi.sh": "installs system packages and a service on a Raspberry Pi "
                                   "(tests/test_pi_install.py runs it in a sandbox)",
}


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown text: (info string, body)."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S)


def commands(body: str) -> list[list[str]]:
    """The commands of a shell block, as argument lists, the way sh reads them."""
    joined = body.replace("\\\n", "")
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out += [shlex.split(part) for part in line.split("&&")]
    return out


def examples() -> list[tuple[list[str], str | None]]:
    """Every shell command in the README, with the output shown after its block (for the
    block's last command), if any."""
    found = blocks(README.read_text(encoding="utf-8"))
    out = []
    for i, (info, body) in enumerate(found):
        if info != "sh":
            continue
        expected = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text" else None
        cmds = commands(body)
        out += [(argv, expected if n == len(cmds) - 1 else None) for n, argv in enumerate(cmds)]
    return out


def skip_reason(argv: list[str]) -> str | None:
    text = " ".join(argv)
    return next((why for prefix, why in SKIPPED.items() if text.startswith(prefix)), None)


def companion_argv(argv: list[str]) -> list[str] | None:
    if argv and argv[0] in ("companion", ".venv/bin/companion"):
        return argv[1:]
    return None


EXAMPLES = examples()


def test_the_readme_has_examples_to_run():
    runnable = [argv for argv, _ in EXAMPLES if companion_argv(argv) is not None]
    assert len(runnable) >= 3  # show, check, run
    assert any(companion_argv(argv)[0] == "run" for argv in runnable)


def test_every_readme_command_is_run_or_skipped_by_name():
    for argv, _ in EXAMPLES:
        assert companion_argv(argv) is not None or skip_reason(argv), (
            f"README.md shows {' '.join(argv)!r}: make it a companion command this test "
            "runs, or name it in SKIPPED with the reason")


@pytest.mark.parametrize("argv, expected", [
    pytest.param(argv, expected, id=" ".join(argv)[:60])
    for argv, expected in EXAMPLES
    if companion_argv(argv) is not None and companion_argv(argv)[:1] != ["run"]])
def test_readme_command_exits_0_and_prints_what_the_readme_shows(argv, expected, capsys,
                                                                monkeypatch):
    monkeypatch.chdir(ROOT)
    code = main(companion_argv(argv))
    out, err = capsys.readouterr()
    assert code == 0, (argv, out, err)
    if expected is not None:
        assert out.strip() == expected.strip()


@pytest.mark.parametrize("argv", [
    pytest.param(argv, id=" ".join(argv)[:60]) for argv, _ in EXAMPLES
    if (companion_argv(argv) or [None])[0] == "run"])
def test_readme_run_serves_the_page_and_stops_on_ctrl_c(argv, tmp_path):
    """``companion run`` as the README starts it, on a free port (``--port 0``, so tests
    running side by side never collide) and with the user's data directory in a temporary
    folder (so the journal is the test's own)."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", *companion_argv(argv), "--port", "0"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lines = []
        deadline = time.monotonic() + 120
        port = None
        while port is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"Ricochet Companion at http://[^:/]+:(\d+)/", line)
            port = int(m.group(1)) if m else None
        assert port is not None, "".join(lines)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as r:
            page = r.read().decode()
        assert r.status == 200 and "Ricochet" in page
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=60)
        assert proc.returncode == 0, "".join(lines) + rest
        assert "stopped; the journal is saved" in rest
        assert (tmp_path / "ricochet-companion").is_dir()  # the journal went where we said
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("body", [body for info, body in blocks(README.read_text("utf-8"))
                                  if info == "json"])
def test_readme_position_files_are_valid(body):
    pos = Position.from_json(body)
    assert pos.target is not None and pos.board.tiles
