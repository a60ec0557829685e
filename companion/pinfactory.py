"""The GPIO chip of the 40-pin header, found by its label, and gpiozero's pin factory for it.

gpiozero 2.0.1 picks the chip from the board's revision (4 on a Pi 5, else 0); kernels have
since renumbered the Pi 5's chips, and lgpio then "can not open gpiochip". So the chip is found
by the label its driver gives it, and :class:`gpiozero.pins.lgpio.LGPIOFactory` is built for
that chip explicitly:

* ``pinctrl-rp1`` — Raspberry Pi 5, 500, CM5 (the RP1 south bridge);
* ``pinctrl-bcm2711`` — Pi 4, 400, CM4;
* ``pinctrl-bcm2835`` — Pi 1, 2, 3, Zero, Zero 2 W.

A chip's label is read from the legacy sysfs listing (``/sys/class/gpio/gpiochipBASE/label``,
whose ``device`` link names ``gpiochipN``), else asked of ``/dev/gpiochipN`` itself (the
``GPIO_GET_CHIPINFO`` ioctl). ``GPIOZERO_PIN_FACTORY`` set in the environment still wins.
"""

from __future__ import annotations

import fcntl
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import CompanionError

HEADER_LABELS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
DEV = Path("/dev")
SYS = Path("/sys")
GPIO_GET_CHIPINFO_IOCTL = 0x8044B401  # _IOR(0xB4, 0x01, struct gpiochip_info): 32+32+4 bytes
_CHIP = re.compile(r"^gpiochip(\d+)$")


class PinFactoryError(CompanionError, RuntimeError):
    """No pin factory for the header: the message says why and what to do."""


@dataclass(frozen=True)
class Chip:
    number: int
    label: str | None


def parse_chipinfo(buf: bytes) -> tuple[str, str, int]:
    """(name, label, lines) from a ``struct gpiochip_info``."""
    if len(buf) < 68:
        raise ValueError(f"gpiochip_info: {len(buf)} bytes, expected 68")
    name = buf[:32].split(b"\0", 1)[0].decode(errors="replace")
    label = buf[32:64].split(b"\0", 1)[0].decode(errors="replace")
    return name, label, int.from_bytes(buf[64:68], "little")


def _ioctl_label(path: Path) -> str | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        buf = fcntl.ioctl(fd, GPIO_GET_CHIPINFO_IOCTL, bytes(68))
        return parse_chipinfo(buf)[1] or None
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _sysfs_labels(sys_root: Path) -> dict[int, str]:
    labels: dict[int, str] = {}
    try:
        entries = list((sys_root / "class" / "gpio").iterdir())
    except OSError:
        return labels
    for entry in entries:
        try:
            label = (entry / "label").read_text().strip()
            target = os.readlink(entry / "device")
        except OSError:
            continue
        m = _CHIP.match(Path(target).name)
        if m and label:
            labels[int(m.group(1))] = label
    return labels


def gpio_chips(dev: str | Path | None = None, sys_root: str | Path | None = None) -> list[Chip]:
    """Every ``/dev/gpiochipN`` with its label (``None`` where it cannot be read)."""
    dev, sys_root = Path(dev or DEV), Path(sys_root or SYS)
    try:
        numbers = sorted(int(m.group(1)) for p in dev.iterdir() if (m := _CHIP.match(p.name)))
    except OSError:
        return []
    labels = _sysfs_labels(sys_root)
    return [Chip(n, labels.get(n) or _ioctl_label(dev / f"gpiochip{n}")) for n in numbers]


def header_chip(chips: list[Chip]) -> Chip | None:
    """The chip of the 40-pin header among ``chips``."""
    for label in HEADER_LABELS:
        for chip in chips:
            if chip.label == label:
                return chip
    return None


def pin_factory(dev: str | Path | None = None, sys_root: str | Path | None = None) -> Any:
    """gpiozero's lgpio pin factory for the header's chip, or ``None`` when the environment
    names a factory (``GPIOZERO_PIN_FACTORY``) and gpiozero should choose. Raises
    :class:`PinFactoryError` saying why there is none."""
    if os.environ.get("GPIOZERO_PIN_FACTORY"):
        return None
    chips = gpio_chips(dev, sys_root)
    if not chips:
        raise PinFactoryError(f"no GPIO chips ({Path(dev or DEV) / 'gpiochip*'}): not a "
                              "Raspberry Pi, or the GPIO driver is not loaded")
    chip = header_chip(chips)
    if chip is None:
        seen = ", ".join(f"gpiochip{c.number} [{c.label or '?'}]" for c in chips)
        raise PinFactoryError(f"no GPIO chip labelled {' or '.join(HEADER_LABELS)} among {seen}")
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as e:
        raise PinFactoryError(
            f"lgpio is not installed ({e}): sudo apt install python3-lgpio, in a venv made "
            "with --system-site-packages (hardware/install-pi.sh does both)") from None
    try:
        return LGPIOFactory(chip=chip.number)
    except Exception as e:  # noqa: BLE001 - lgpio.error and OSError alike
        raise PinFactoryError(
            f"cannot open /dev/gpiochip{chip.number} [{chip.label}] ({e}): is the user in the "
            "gpio group?") from None
