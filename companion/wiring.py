"""The wiring diagram of a pin map: ``python -m companion.wiring [PINS.toml] > wiring.svg``.

``hardware/wiring.svg`` is this module's drawing of the default ``hardware/pins.toml`` (a test
checks they agree): the 40-pin header seen from above, every pin in use with the part in series
and the device it drives, the free pins with what they are kept for.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from html import escape

from .gpio import PinMap, PinMapError

# physical pin → BCM GPIO, or the supply it carries
HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND", 31: 6,
    32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}
FIXED_PULL_UP = {2, 3}  # 1.8 kΩ to 3V3 on the board (I2C)
KEPT_FOR = {0: "HAT ID", 1: "HAT ID", 12: "PWM audio", 13: "PWM audio", 18: "PWM audio, I2S",
            19: "PWM audio, I2S", 20: "I2S", 21: "I2S"}
COLOURS = {"hourglass": "#c77c00", "start": "#007a5a", "bid": "#0b5fa5", "dial": "#9c3d7c",
           "buzzer": "#c2410c", "display": "#2b8cbe", "player_leds": "#7a6a00"}
SUPPLY = {"3V3": "#e8590c", "5V": "#c92a2a", "GND": "#000"}
WIDTH, ROW, TOP, LEFT_X, RIGHT_X = 1280, 32, 130, 620, 660
BUTTON_VIA_1K = "1 kΩ → switch → GND"
BUTTON_DIRECT = "switch → GND, no resistor (board pull-up)"


def describe(use: str, gpio: int, pins: PinMap) -> tuple[str, str]:
    """(device, what is in series) for one pin's job."""
    m = re.fullmatch(r"(\w+)\.(\w+)(?:\[(\d+)\])?", use)
    assert m, use
    section, key, index = m.group(1), m.group(2), m.group(3)
    i = int(index) if index is not None else 0
    button = BUTTON_DIRECT if gpio in FIXED_PULL_UP else BUTTON_VIA_1K
    if section == "hourglass":
        end = " (bottom)" if i == 0 else " (top)" if i == len(pins.hourglass) - 1 else ""
        return f"hourglass LED {i + 1}{end}", "470 Ω → LED → GND"
    if section == "start":
        return "start button (hold: undo)", button
    if section == "bid":
        return f"bid button, seat {i} (player {i + 1})", button
    if section == "dial":
        if key == "push":
            return "dial push (SW)", button
        return f"dial {key.upper()} ({'CLK' if key == 'a' else 'DT'})", "KY-040, + on 3V3"
    if section == "buzzer":
        return "buzzer (passive piezo)", "100 Ω → piezo → GND"
    if section == "display":
        if pins.display is not None and pins.display.kind == "bcd":
            return f"display: CD4511 input {'ABCD'[i]}", "straight to the CD4511"
        return f"display segment {'abcdefg'[i] if key == 'pins' else key}", "330 Ω → segment"
    return f"player LED, seat {i}", "470 Ω → LED → GND"


def render_svg(pins: PinMap, title: str = "default hardware/pins.toml") -> str:
    used = pins.assignments()
    height = TOP + 20 * ROW + 200
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        'font-size="13">',
        f"<title>Ricochet Companion: table wiring ({escape(title)})</title>",
        '<rect width="100%" height="100%" fill="#fff"/>',
        f'<text x="{WIDTH // 2}" y="34" text-anchor="middle" font-size="22" font-weight="bold">'
        "Ricochet Companion: table wiring</text>",
        f'<text x="{WIDTH // 2}" y="58" text-anchor="middle" fill="#333">'
        "Raspberry Pi 40-pin header seen from above, pin 1 top left (the corner nearest the "
        "SD card). BCM numbers as in "
        f"{escape(title.removeprefix('default '))}.</text>",
        f'<text x="{WIDTH // 2}" y="78" text-anchor="middle" fill="#333">'
        "Every LED: pin → 470 Ω → LED anode, cathode → GND. Buttons: pin → 1 kΩ → switch → "
        "GND, but GPIO2 and GPIO3 "
        "straight to the switch (see WIRING.md).</text>",
        f'<rect x="{LEFT_X - 24}" y="{TOP - 22}" width="88" height="{20 * ROW + 12}" rx="6" '
        'fill="#1f2a1f" stroke="#000"/>',
    ]
    for pin, what in HEADER.items():
        right = pin % 2 == 0
        x, y = (RIGHT_X if right else LEFT_X), TOP + (pin - 1) // 2 * ROW
        anchor, tx = ("start", x + 32) if right else ("end", x - 32)
        if isinstance(what, str):
            colour, label, note = SUPPLY[what], what, ""
        elif what in used:
            use = used[what]
            colour = COLOURS[use.split(".")[0]]
            device, series = describe(use, what, pins)
            label, note = f"GPIO{what}", f"{device}: {series}"
        else:
            colour, label = "#bbb", f"GPIO{what}"
            note = f"free ({KEPT_FOR[what]})" if what in KEPT_FOR else "free"
        group = isinstance(what, int) and what in used
        if group:
            out.append(f'<g data-gpio="{what}" data-use="{escape(used[what])}">')
        out.append(f'<circle cx="{x}" cy="{y}" r="9" fill="{colour}" stroke="#fff" '
                   'stroke-width="1.5"/>')
        out.append(f'<text x="{x}" y="{y + 4}" text-anchor="middle" font-size="9" '
                   f'fill="#fff">{pin}</text>')
        out.append(f'<text x="{tx}" y="{y + 5}" text-anchor="{anchor}" font-weight="bold" '
                   f'fill="{colour}">{label}<tspan font-weight="normal" fill="#222" '
                   f'dx="8">{escape(note)}</tspan></text>')
        if group:
            out.append("</g>")
    y = TOP + 20 * ROW + 24
    notes = [
        "Inputs read low below 0.8 V and high above 2.0 V (3.3 V logic). Internal pull-up "
        "about 50 kΩ: through 1 kΩ a press reads 3.3 × 1/51 = 0.06 V.",
        "GPIO2/GPIO3 have fixed 1.8 kΩ pull-ups: through 1 kΩ a press would read "
        "3.3 × 1/2.8 = 1.18 V, undefined; wired straight to the switch it reads 0 V.",
        "Display: CD4511 on 3V3 (VDD 16, VSS 8), LT 3 and BL 4 to 3V3, LE 5 to GND, outputs "
        "a–g through 330 Ω to a common-cathode digit.",
        "Dial: KY-040 + on 3V3 (never 5V), GND to GND. A bare encoder: common to GND, A and B "
        "straight to the pins.",
        "Free pins: GPIO0/1 are the HAT's ID EEPROM; 12, 13, 18, 19 PWM audio; 18–21 I2S "
        "(a sound HAT).",
    ]
    for i, text in enumerate(notes):
        out.append(f'<text x="40" y="{y + 24 * i}" fill="#222">{escape(text)}</text>')
    y += 24 * len(notes) + 20
    for i, (name, colour) in enumerate(COLOURS.items()):
        x = 40 + 155 * i
        out.append(f'<rect x="{x}" y="{y - 12}" width="14" height="14" fill="{colour}"/>'
                   f'<text x="{x + 20}" y="{y}">{name.replace("_", " ")}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m companion.wiring [PINS.toml]``: the wiring diagram of a pin map, as SVG."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print("usage: python -m companion.wiring [PINS.toml] > wiring.svg", file=sys.stderr)
        return 2
    try:
        pins = PinMap.load(args[0] if args else None)
    except PinMapError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    sys.stdout.write(render_svg(pins, args[0] if args else "default hardware/pins.toml"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
