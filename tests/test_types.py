"""The core's types are checked (mypy, configured in pyproject.toml), so a seam that drifts
fails here rather than at the table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_core():
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.fail("mypy is part of the [test] extra: install it with pip install -e '.[test]'")
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
