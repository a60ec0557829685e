"""Print the project's declared requirements, one a line, for the CI's checks.

    python3 .ci/deps.py            # the run-time requirements and the [pi] extra
    python3 .ci/deps.py --floors   # the same, each pinned at its declared minimum (>= → ==)

A requirement without a ``>=`` floor is an error: every dependency must state the oldest
release the project is tested with."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
requirements = project["project"]["dependencies"] + \
    project["project"]["optional-dependencies"]["pi"]
for req in requirements:
    if "--floors" in sys.argv[1:]:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9][0-9A-Za-z.]*)(\s*;.*)?", req)
        if not m:
            sys.exit(f"pyproject.toml: {req!r} has no >= floor to install")
        req = f"{m[1]}=={m[2]}{m[3] or ''}"
    print(req)
