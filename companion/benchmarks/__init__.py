"""Benchmarks behind ``companion bench NAME``: each module has ``run(argv) -> int`` that prints a
table and writes the figures as JSON. Speed goals live here, never in the tests."""

NAMES = ("solver", "vision", "render", "hardware", "verify", "web", "micro-vision", "camera")
