"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


@pytest.fixture
def factory():
    """A fresh mock pin factory (PWM-capable) for each test; the previous one is restored."""
    old = Device.pin_factory
    mock = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = mock
    try:
        yield mock
    finally:
        mock.reset()
        Device.pin_factory = old


@pytest.fixture
def cli(capsys):
    """Run ``companion`` in this process: ``cli("solve", path)`` → (exit status, stdout,
    stderr)."""
    from companion.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run
