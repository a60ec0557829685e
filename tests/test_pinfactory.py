"""The header's GPIO chip is found by its label on every Pi, the pin factory is built for it,
and a table without its buttons says so on the page, with the reason."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion import pinfactory
from companion.gpio import Hardware, PinMap
from companion.pinfactory import (
    Chip,
    PinFactoryError,
    gpio_chips,
    header_chip,
    parse_chipinfo,
    pin_factory,
)
from companion.table import Table

CHROMIUM = Path("/usr/bin/chromium")

# (chip number, label, legacy sysfs base) as each board's kernel lists them
PI4 = [(0, "pinctrl-bcm2711", 512), (1, "raspberrypi-exp-gpio", 570)]
PI5_OLD_KERNEL = [(0, "gpio-brcmstb@107d508500", 512), (1, "gpio-brcmstb@107d508520", 544),
                  (2, "gpio-brcmstb@107d517c00", 550), (3, "gpio-brcmstb@107d517c20", 582),
                  (4, "pinctrl-rp1", 571)]
PI5_NEW_KERNEL = [(0, "pinctrl-rp1", 569), (10, "gpio-brcmstb@107d508500", 512),
                  (11, "gpio-brcmstb@107d508520", 544), (12, "gpio-brcmstb@107d517c00", 550),
                  (13, "gpio-brcmstb@107d517c20", 582)]
PI5_ONLY_HIGH = [(11, "gpio-brcmstb@107d508500", 512), (12, "gpio-brcmstb@107d508520", 544),
                 (13, "gpio-brcmstb@107d517c00", 550), (14, "gpio-brcmstb@107d517c20", 582),
                 (15, "pinctrl-rp1", 571)]
PI3 = [(0, "pinctrl-bcm2835", 0)]


def fake_tree(root: Path, chips, *, sysfs: bool = True) -> tuple[Path, Path]:
    """A /dev with gpiochipN nodes and a /sys with the legacy gpio class listing."""
    dev, sys_root = root / "dev", root / "sys"
    dev.mkdir(parents=True)
    (dev / "null").write_text("")
    for number, label, base in chips:
        (dev / f"gpiochip{number}").write_text("")
        if not sysfs:
            continue
        device = sys_root / "devices" / "platform" / "soc" / f"gpiochip{number}"
        device.mkdir(parents=True)
        entry = sys_root / "class" / "gpio" / f"gpiochip{base}"
        entry.mkdir(parents=True)
        (entry / "label").write_text(label + "\n")
        (entry / "base").write_text(f"{base}\n")
        os.symlink(os.path.relpath(device, entry), entry / "device")
    return dev, sys_root


@pytest.mark.parametrize("chips, number", [
    (PI4, 0), (PI5_OLD_KERNEL, 4), (PI5_NEW_KERNEL, 0), (PI5_ONLY_HIGH, 15), (PI3, 0)])
def test_the_header_chip_is_found_by_its_label_whatever_its_number(tmp_path, chips, number):
    dev, sys_root = fake_tree(tmp_path, chips)
    found = gpio_chips(dev, sys_root)
    assert [c.number for c in found] == sorted(n for n, _, _ in chips)
    chip = header_chip(found)
    assert chip is not None and chip.number == number
    assert chip.label in pinfactory.HEADER_LABELS


@given(st.permutations(PI5_NEW_KERNEL + [(20, "some-expander", 600)]))
def test_the_order_of_the_listing_does_not_matter(chips):
    found = [Chip(n, label) for n, label, _ in chips]
    assert header_chip(found) == Chip(0, "pinctrl-rp1")


def test_a_listing_without_the_header_chip_or_without_labels_is_no_chip(tmp_path):
    dev, sys_root = fake_tree(tmp_path / "a", [(0, "gpio-mockup-A", 0)])
    assert header_chip(gpio_chips(dev, sys_root)) is None
    dev, sys_root = fake_tree(tmp_path / "b", PI4, sysfs=False)  # no sysfs, ioctl refused
    assert gpio_chips(dev, sys_root) == [Chip(0, None), Chip(1, None)]
    assert gpio_chips(tmp_path / "nowhere", sys_root) == []


def test_the_chip_info_struct_is_read_as_the_kernel_lays_it_out():
    buf = b"gpiochip4".ljust(32, b"\0") + b"pinctrl-rp1".ljust(32, b"\0") + (54).to_bytes(4,
                                                                                       "little")
    assert parse_chipinfo(buf) == ("gpiochip4", "pinctrl-rp1", 54)
    with pytest.raises(ValueError, match="68"):
        parse_chipinfo(buf[:40])


def fake_lgpio(monkeypatch, dev: Path, refuse: bool = False) -> list[int]:
    """lgpio's chip opening, as lgpio does it: ``gpiochip_open(n)`` opens /dev/gpiochipN or
    raises ``lgpio.error('can not open gpiochip')``."""
    opened: list[int] = []
    mod = types.ModuleType("lgpio")

    class error(Exception):  # noqa: N801 - lgpio's name
        pass

    def gpiochip_open(chip: int) -> int:
        if refuse or not (dev / f"gpiochip{chip}").exists():
            raise error("can not open gpiochip")
        opened.append(chip)
        return 100 + chip

    mod.error = error
    mod.gpiochip_open = gpiochip_open
    mod.gpiochip_close = lambda handle: 0
    # lgpio's own values
    mod.SET_PULL_UP = mod.SET_BIAS_PULL_UP = 32
    mod.SET_PULL_DOWN = mod.SET_BIAS_PULL_DOWN = 64
    mod.SET_PULL_NONE = mod.SET_BIAS_DISABLE = 128
    mod.RISING_EDGE, mod.FALLING_EDGE, mod.BOTH_EDGES = 1, 2, 3
    monkeypatch.setitem(sys.modules, "lgpio", mod)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    return opened


def test_the_pin_factory_is_built_for_the_labelled_chip(tmp_path, monkeypatch):
    dev, sys_root = fake_tree(tmp_path, PI5_ONLY_HIGH)
    opened = fake_lgpio(monkeypatch, dev)
    factory = pin_factory(dev, sys_root)
    assert opened == [15] and factory._chip == 15
    assert type(factory).__name__ == "LGPIOFactory"


def test_a_chip_that_cannot_be_opened_names_it_and_the_likely_cause(tmp_path, monkeypatch):
    dev, sys_root = fake_tree(tmp_path, PI4)
    fake_lgpio(monkeypatch, dev, refuse=True)
    with pytest.raises(PinFactoryError, match=r"/dev/gpiochip0 \[pinctrl-bcm2711\] "
                                              r"\(can not open gpiochip\).*gpio group"):
        pin_factory(dev, sys_root)


def test_without_lgpio_the_reason_says_how_to_install_it(tmp_path, monkeypatch):
    dev, sys_root = fake_tree(tmp_path, PI4)
    monkeypatch.setitem(sys.modules, "lgpio", None)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    with pytest.raises(PinFactoryError, match="sudo apt install python3-lgpio"):
        pin_factory(dev, sys_root)


def test_a_factory_named_in_the_environment_is_left_to_gpiozero(tmp_path, monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert pin_factory(tmp_path, tmp_path) is None


def missing_buttons_table(tmp_path, monkeypatch, chips=()):
    dev, sys_root = fake_tree(tmp_path / "root", list(chips))
    monkeypatch.setattr(pinfactory, "DEV", dev)
    monkeypatch.setattr(pinfactory, "SYS", sys_root)
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    t = Table(db=str(tmp_path / "j.db"), pin="2468")
    t.attach_hardware(Hardware(PinMap.load(), lambda c: None, report=lambda m: None))
    return t


def test_a_table_without_its_buttons_says_which_and_why(tmp_path, monkeypatch):
    t = missing_buttons_table(tmp_path, monkeypatch, [(0, "gpio-mockup-A", 0)])
    t.start()
    try:
        devices = t.call(lambda: t.view())["devices"]
        assert devices["missing"][:3] == ["hourglass", "start", "bid[0]"]
        assert "no GPIO chip labelled pinctrl-rp1" in devices["problems"][0]
        assert "gpiochip0 [gpio-mockup-A]" in devices["problems"][0]
    finally:
        t.stop()
        t.hardware.close()


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium")
@pytest.mark.browser
@pytest.mark.slow
def test_the_page_shows_the_missing_buttons_with_the_reason(tmp_path, monkeypatch):
    from playwright.sync_api import sync_playwright

    from companion.web import create_app
    from companion.web.serve import serve_in_thread

    t = missing_buttons_table(tmp_path, monkeypatch)
    t.start()
    server, url = serve_in_thread(create_app(t))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(url + "/")
            box = page.locator("#devices-status")
            box.wait_for(state="visible", timeout=15000)
            text = box.inner_text()
            assert text.startswith("Not working: hourglass, start, bid[0]")
            assert "no GPIO chips" in text and box.get_attribute("data-ok") == "0"
            browser.close()
    finally:
        server.close()
        t.stop()
        t.hardware.close()
