"""Benchmarks behind ``companion bench NAME``: each module has ``run(argv) -> int`` that prints a
table and writes the figures as JSON. Speed goals live here, never in the tests."""

NAMES = ("solver", "vision", "render", "hardware", "verify", "web", "micro-vision", "camera",
         "adapt")


def write_report(out: str, report: dict, code: int = 0) -> int:
    """Write a benchmark's figures to ``out`` as JSON and say where; ``code`` is the
    benchmark's exit status, 2 when the file cannot be written (with the reason)."""
    import json
    from pathlib import Path

    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2) + "\n")
    except OSError as e:
        print(f"error: --out: cannot write {path} ({e.strerror or e})")
        return 2
    print(f"wrote {path}")
    return code


def percentile(values: list[float], q: float) -> float:
    """The ``q``-th percentile (0–100, interpolated) of ``values``; NaN when there are none."""
    import numpy as np

    return float(np.percentile(values, q)) if values else float("nan")


def frame_size(parser, text: str, option: str = "--size") -> tuple[int, int]:
    """``WIDTHxHEIGHT`` of a rendered frame, or the parser's error naming the option."""
    try:
        w, h = (int(x) for x in text.lower().split("x"))
        if not (160 <= w <= 4000 and 120 <= h <= 4000):
            raise ValueError
    except ValueError:
        parser.error(f"{option}: WIDTHxHEIGHT between 160x120 and 4000x4000, not {text!r}")
    return w, h
